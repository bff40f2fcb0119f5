/// A minimal array-backed binary heap; `ordered(a, b)` true means `a` pops before `b`.
struct BinaryHeap<Element> {
    private(set) var elements: [Element] = []
    private let ordered: (Element, Element) -> Bool

    init(ordered: @escaping (Element, Element) -> Bool) {
        self.ordered = ordered
    }

    var isEmpty: Bool { elements.isEmpty }

    mutating func removeAll() { elements.removeAll(keepingCapacity: true) }

    mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard ordered(elements[child], elements[parent]) else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var parent = 0
        let count = elements.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            var best = left
            if right < count && ordered(elements[right], elements[left]) { best = right }
            guard ordered(elements[best], elements[parent]) else { break }
            elements.swapAt(best, parent)
            parent = best
        }
        return top
    }
}
