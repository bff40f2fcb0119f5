import Foundation
import TestSupport
import Server
import Testing

/// The chat page at `/`: served without the key to browsers, the banner to everything else, and
/// the page itself driven in headless Chromium (`chat_page_check.py`, through chromedriver).
@Suite(.serialized) struct ChatPageTests {
    @Test func `a browser gets the page without the key and other clients the banner`() async throws {
        let server = try await TestServer.start(apiKey: "page-key")
        let port = server.port
        let (page, index, banner, models) = try await offPool {
            let client = try LoopbackClient(port: port)
            let page = try client.request("GET", "/", headers: ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"])
            let index = try client.request("GET", "/index.html")
            let banner = try client.request("GET", "/", headers: ["Accept": "*/*"])
            let models = try client.request("GET", "/v1/models", headers: ["Accept": "text/html"])
            return (page, index, banner, models)
        }
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.hasPrefix("<!doctype html>") && page.text.contains("<title>OnDevice chat</title>"))
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'") && policy.contains("media-src 'self' blob:"))
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(index.status == 200 && index.body == page.body)
        #expect(banner.status == 200 && banner.text.hasPrefix("OnDevice is running"))
        #expect(models.status == 401, "the page is open; the API behind it still needs the key")
        await server.stop(grace: 5)
    }

    @Test func `HEAD gets the page's head without its body, and the connection stays usable`() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let (head, next) = try await offPool {
            let client = try LoopbackClient(port: port)
            client.send(Array("HEAD /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let head = try client.readHead()
            return (head, try client.request("GET", "/health"))
        }
        #expect(head.status == 200 && head.headers["content-type"] == "text/html; charset=utf-8")
        #expect(Int(head.headers["content-length"] ?? "") ?? 0 > 1000, "HEAD states the length GET would send")
        #expect(next.status == 200 && next.text.contains("ok"), "a body after HEAD would have been read as this response")
        await server.stop(grace: 5)
    }

    @Test func `the page loads nothing from elsewhere and never renders model output as markup`() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let page = try await offPool { try LoopbackClient(port: port).request("GET", "/index.html").text }
        for outside in ["http://", "https://", "//cdn", "@import", "<link", "src=\""] {
            #expect(!page.contains(outside), "the page refers to \(outside)")
        }
        #expect(!page.contains("innerHTML") && !page.contains("outerHTML") && !page.contains("insertAdjacentHTML")
                && !page.contains("document.write"))
        await server.stop(grace: 5)
    }

    @Test func `the page chats, stops, transcribes and speaks in headless Chromium`() async throws {
        for tool in ["chromium", "chromedriver"] {
            let found = ["/usr/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
            try #require(found, "\(tool) is not installed (scripts/setup.sh installs it): the chat page test needs it")
        }
        let server = try await TestServer.start(apiKey: "page-key")
        let port = server.port
        let script = TestServer.repositoryRoot + "/Tests/ServerTests/chat_page_check.py"
        let wav = TestServer.golden + "/audio/p01_piper_weather.wav"
        let (status, output) = try await offPool {
            try OpenAIClientTests.python([script, "http://127.0.0.1:\(port)", "page-key", wav])
        }
        print(output.split(separator: "\n").map { "[chat page] \($0)" }.joined(separator: "\n"))
        #expect(status == 0, "chat_page_check.py failed:\n\(output)")
        #expect(output.contains("9 passed, 0 failed"))

        // Stop hung up on the long reply: the server cancelled it rather than decoding on.
        let queue = server.host.queue(for: "smollm2-135m-instruct-q4_1")
        var waited = 0
        while queue.counts.running > 0 && waited < 50 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(queue.counts.running == 0, "a generation is still running after the page stopped it")

        let shots = output.split(separator: "\n").filter { $0.hasPrefix("screenshot ") }.map { String($0.dropFirst(11)) }
        #expect(shots.count == 3)
        for path in shots {
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.count > 1000 && png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(path) is not a PNG")
        }
        await server.stop(grace: 5)
    }
}
