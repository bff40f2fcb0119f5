import Imaging
import Models

/// Faces in a photo, as MediaPipe's face detection solution finds them (BlazeFace short range,
/// `face_detection_short_range_cpu.pbtxt`): the upright image letterboxed to a 128 × 128 tensor
/// in [-1, 1], the network, decoding and weighted suppression on the tensor, then the boxes and
/// keypoints mapped back to the image.
package enum FaceFinder {
    /// Detections normalized to `image` (x right, y down), best first.
    package static func detect(in image: RGBImage, model: BlazeFace, threads: Int) throws(ModelError) -> [FaceDetection] {
        let side = BlazeFace.inputSize
        let rect = ImageToTensor.letterboxSquare(width: image.width, height: image.height)
        let tensor = ImageToTensor.warp(image, rect: rect, width: side, height: side, border: .zero)
        let (regressors, logits) = try model.run(ImageToTensor.tensor(tensor, table: ImageToTensor.minusOneToOne), threads: threads)
        return FaceDetectionDecoder.detections(regressors: regressors, logits: logits).map {
            FaceDetectionDecoder.project($0, width: image.width, height: image.height)
        }
    }

    /// The photo at `path` decoded upright (EXIF orientation applied, grey expanded to RGB), its
    /// size, and its faces normalized to that size.
    package static func detect(fileAt path: String, model: BlazeFace, threads: Int) throws(PhotosError)
        -> (width: Int, height: Int, faces: [FaceDetection]) {
        let image: RGBImage
        do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw .image(error) }
        do {
            return (image.width, image.height, try detect(in: image, model: model, threads: threads))
        } catch {
            throw .model(file: path, error: error)
        }
    }

    /// As `detect(fileAt:)`, then the main face's mesh and eye aspect ratios (`FaceAnalysis`) and
    /// the sharpness of the largest face box.
    package static func analyze(fileAt path: String, detector: BlazeFace, mesh: FaceMesh, threads: Int) throws(PhotosError)
        -> (width: Int, height: Int, faces: [FaceDetection], analysis: FaceAnalysis?, sharpness: Double?) {
        let image: RGBImage
        do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw .image(error) }
        do {
            let faces = try detect(in: image, model: detector, threads: threads)
            let analysis = try FaceAnalysis.analyze(image, detections: faces, mesh: mesh, threads: threads)
            return (image.width, image.height, faces, analysis, FaceAnalysis.faceSharpness(image, detections: faces))
        } catch {
            throw .model(file: path, error: error)
        }
    }
}
