/// A ranking and what produced it.
package struct SearchResults: Sendable, Equatable {
    package var capability: SearchCapability
    package var method: SearchMethod
    package var hits: [SearchHit]
}
