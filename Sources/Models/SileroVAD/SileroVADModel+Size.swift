extension SileroVADModel {
    /// Bytes of the mapped safetensors file the weights live in.
    package var fileBytes: Int { file.region.count }
}
