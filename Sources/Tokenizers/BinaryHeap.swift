/// A minimal array-backed binary heap; the element that is `<` all others pops first.
///
/// Generic over `Comparable` rather than a comparison closure so the merge loops specialise it
/// and the comparison inlines (a closure call per comparison cost ~20 % of SentencePiece time).
struct BinaryHeap<Element: Comparable> {
    private var elements: [Element] = []

    var isEmpty: Bool { elements.isEmpty }

    mutating func push(_ element: Element) {
        elements.append(element)
        elements.withUnsafeMutableBufferPointer { heap in
            // Sift the new element up through a hole instead of swapping at every level.
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard element < heap[parent] else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = element
        }
    }

    mutating func pop() -> Element? {
        guard let last = elements.popLast() else { return nil }
        guard !elements.isEmpty else { return last }
        return elements.withUnsafeMutableBufferPointer { heap in
            let top = heap[0]
            let count = heap.count
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < count else { break }
                let right = left + 1
                let best = right < count && heap[right] < heap[left] ? right : left
                guard heap[best] < last else { break }
                heap[parent] = heap[best]
                parent = best
            }
            heap[parent] = last
            return top
        }
    }
}
