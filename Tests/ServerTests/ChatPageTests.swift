import Foundation
import Server
import Testing

/// The chat page at `/`: served without the key to browsers, the banner to everything else.
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
}
