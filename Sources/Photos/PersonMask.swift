import Imaging
import Models

/// A person mask as MediaPipe's selfie segmentation solution computes it
/// (`selfie_segmentation_cpu.pbtxt`, general model): the whole upright image stretched to a
/// 256 × 256 tensor in [0, 1] (no letterbox, zero border), the network, then its 256 × 256
/// output resized to the image with OpenCV's INTER_LINEAR in float32.
package enum PersonMask {
    /// `width * height` values 0...1 (person high), row-major, for `image`.
    package static func segment(_ image: RGBImage, model: SelfieSegmenter, threads: Int) throws(ModelError) -> [Float] {
        let side = SelfieSegmenter.inputSize
        let rect = RotatedRect(centerX: Double(image.width) / 2, centerY: Double(image.height) / 2,
                               width: Double(image.width), height: Double(image.height))
        let tensor = ImageToTensor.warp(image, rect: rect, width: side, height: side, border: .zero)
        let raw = try model.run(ImageToTensor.tensor(tensor, table: ImageToTensor.zeroToOne), threads: threads)
        return resizeLinear(raw, width: side, height: side, toWidth: image.width, toHeight: image.height)
    }

    /// The photo at `path` decoded upright: its size, its mask and the subject's sharpness.
    package static func segment(fileAt path: String, model: SelfieSegmenter, threads: Int) throws(PhotosError)
        -> (width: Int, height: Int, mask: [Float], subjectSharpness: Double?) {
        let image: RGBImage
        do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw .image(error) }
        let mask: [Float]
        do { mask = try segment(image, model: model, threads: threads) } catch { throw .model(file: path, error: error) }
        return (image.width, image.height, mask, subjectSharpness(image, mask: mask))
    }

    /// Variance of the Laplacian of the luminance (FrameQuality's kernel and luminance, at the
    /// photo's own resolution) over the interior pixels whose mask value is over 0.5: how sharp
    /// the subject is, whatever the background does (a portrait's blurred backdrop lowers the
    /// whole frame's figure, not this one). Nil when fewer than 64 pixels are the subject.
    package static func subjectSharpness(_ image: RGBImage, mask: [Float]) -> Double? {
        let w = image.width, h = image.height
        guard w >= 3, h >= 3, mask.count == w * h else { return nil }
        let plane = LuminancePlane(image).values
        var n = 0, sum = 0.0, sumSquares = 0.0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where mask[y * w + x] > 0.5 {
                let i = y * w + x
                let l = Double(plane[i - w]) + Double(plane[i + w]) + Double(plane[i - 1]) + Double(plane[i + 1]) - 4 * Double(plane[i])
                n += 1
                sum += l
                sumSquares += l * l
            }
        }
        guard n >= 64 else { return nil }
        let mean = sum / Double(n)
        return max(0, sumSquares / Double(n) - mean * mean)
    }

    /// The mask as an 8-bit grayscale PNG (`round(255 · value)`, as MediaPipe's masks are viewed).
    package static func png(_ mask: [Float], width: Int, height: Int) throws(PhotosError) -> [UInt8] {
        let gray = mask.map { UInt8((255 * min(max($0, 0), 1)).rounded()) }
        do { return try PNGEncoder.encodeGray(gray, width: width, height: height) } catch { throw .image(error) }
    }

    /// OpenCV's `resize` with INTER_LINEAR on one float32 channel: source coordinate
    /// `(d + 0.5) · in / out − 0.5`, its floor and fraction, clamped to the edge pixels (fraction 0
    /// there); rows interpolated horizontally first, then the two rows vertically.
    package static func resizeLinear(_ x: [Float], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Float] {
        func taps(_ output: Int, _ input: Int) -> [(Int, Int, Float)] {
            let scale = Double(input) / Double(output)
            return (0..<output).map { d in
                var f = Float((Double(d) + 0.5) * scale - 0.5)
                var s = Int(f.rounded(.down))
                f -= Float(s)
                if s < 0 { s = 0; f = 0 }
                if s >= input - 1 { s = input - 1; f = 0 }
                return (s, min(s + 1, input - 1), f)
            }
        }
        let cols = taps(toWidth, width), rows = taps(toHeight, height)
        func row(_ y: Int) -> [Float] {
            cols.map { (s0, s1, f) in x[y * width + s0] * (1 - f) + x[y * width + s1] * f }
        }
        var out = [Float](repeating: 0, count: toWidth * toHeight)
        var cache: (Int, [Float])? = nil, cache2: (Int, [Float])? = nil
        func cachedRow(_ y: Int) -> [Float] {
            if let c = cache, c.0 == y { return c.1 }
            if let c = cache2, c.0 == y { return c.1 }
            let r = row(y)
            cache2 = cache
            cache = (y, r)
            return r
        }
        for (oy, (s0, s1, f)) in rows.enumerated() {
            let a = cachedRow(s0), b = cachedRow(s1)
            for ox in 0..<toWidth { out[oy * toWidth + ox] = a[ox] * (1 - f) + b[ox] * f }
        }
        return out
    }
}
