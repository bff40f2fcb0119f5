import Imaging

extension VisionGolden {
    /// The golden file `relative` decoded upright (EXIF orientation applied), as the recipe's step 1.
    static func decode(_ relative: String) throws -> RGBImage {
        try ImageDecoder().decode(fileAt: root.appendingPathComponent(relative).path).image
    }
}
