import CFuzz
import Foundation
import Fuzzing

/// `ondevice-fuzz`: the fuzz targets' driver.
///
///     ondevice-fuzz list                      targets, one per line: name, max length, what it reads
///     ondevice-fuzz seeds DIR                 writes each target's built-in seeds to DIR/<target>/
///     ondevice-fuzz TARGET [libFuzzer args]   fuzzes TARGET (in the build scripts/fuzz.sh makes)
///     ondevice-fuzz replay TARGET FILE...     runs each file through TARGET once (any build)
@main
struct FuzzMain {
    nonisolated(unsafe) static var current: FuzzTarget?

    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else { usage() }
        switch arguments[1] {
        case "list":
            for target in FuzzTarget.all { print("\(target.name)\t\(target.maxLength)\t\(target.summary)") }
        case "seeds":
            guard arguments.count == 3 else { usage() }
            writeSeeds(to: arguments[2])
        case "replay":
            guard arguments.count >= 3, let target = FuzzTarget.named(arguments[2]) else { usage() }
            for path in arguments.dropFirst(3) {
                guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
                target.run(Array(data))
            }
            print("replayed \(arguments.count - 3) inputs through \(target.name)")
        default:
            guard let target = FuzzTarget.named(arguments[1]) else { fail("no target '\(arguments[1])' (ondevice-fuzz list)") }
            current = target
            // libFuzzer reads its flags and corpus directories from argv; the target name goes.
            var argv: [UnsafeMutablePointer<CChar>?] = ([arguments[0]] + arguments.dropFirst(2)).map { strdup($0) } + [nil]
            var argc = Int32(argv.count - 1)
            let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
                return od_fuzz_run(&argc, &pointer) { data, size in
                    FuzzMain.current!.body(UnsafeRawBufferPointer(start: data, count: size))
                    return 0
                }
            }
            guard status >= 0 else {
                fail("this build does not link libFuzzer: build with scripts/fuzz.sh, or use 'replay'")
            }
            exit(status)
        }
    }

    static func writeSeeds(to directory: String) {
        var count = 0
        for (name, inputs) in FuzzSeeds.all() {
            let folder = directory + "/" + name
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (i, bytes) in inputs.enumerated() {
                guard FileManager.default.createFile(atPath: folder + "/seed-\(i)", contents: Data(bytes)) else {
                    fail("cannot write \(folder)/seed-\(i)")
                }
                count += 1
            }
        }
        print("wrote \(count) seeds under \(directory)")
    }

    static func usage() -> Never {
        fail("usage: ondevice-fuzz list | seeds DIR | TARGET [libFuzzer flags] [CORPUS...] | replay TARGET FILE...")
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("ondevice-fuzz: \(message)\n".utf8))
        exit(2)
    }
}
