import Testing
import Tensor

@Test func `block sizes match the GGUF layouts`() {
    #expect(GGMLType.q4_1.bytesPerBlock == 20)
    #expect(GGMLType.q8_0.bytesPerBlock == 34)
    #expect(GGMLType.q4_K.bytesPerBlock == 144)
    #expect(GGMLType.q6_K.bytesPerBlock == 210)
    #expect(GGMLType.q2_K.bytesPerBlock == 84)
    #expect(GGMLType.q3_K.bytesPerBlock == 110)
    #expect(GGMLType.q5_K.bytesPerBlock == 176)
    #expect(GGMLType.q4_1.rowBytes(elements: 576) == 360)
    #expect(GGMLType.q4_K.rowBytes(elements: 100) == nil)
}
