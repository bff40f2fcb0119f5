import Runtime
import Testing

@Suite struct EventBusTests {
    @Test func `every subscriber gets every event in order`() async {
        let bus = EventBus<Int>()
        let a = bus.subscribe(), b = bus.subscribe()
        for i in 0..<10 { bus.publish(i) }
        bus.finish()
        var seenA: [Int] = [], seenB: [Int] = []
        for await e in a { seenA.append(e) }
        for await e in b { seenB.append(e) }
        #expect(seenA == Array(0..<10) && seenB == Array(0..<10))
    }

    @Test func `a slow subscriber loses the oldest events, counted, and never blocks the publisher`() async {
        let bus = EventBus<Int>()
        let slow = bus.subscribe(bufferSize: 4)
        let fast = bus.subscribe(bufferSize: 1000)
        for i in 0..<100 { bus.publish(i) }  // returns although nobody has read anything
        bus.finish()
        var slowSeen: [Int] = [], fastSeen: [Int] = []
        for await e in slow { slowSeen.append(e) }
        for await e in fast { fastSeen.append(e) }
        #expect(slowSeen == [96, 97, 98, 99])
        #expect(slow.dropped == 96 && fast.dropped == 0)
        #expect(fastSeen.count == 100)
        #expect(bus.droppedEvents == 96)
    }

    @Test func `a subscriber that stops listening is removed`() async {
        let bus = EventBus<Int>()
        let subscription = bus.subscribe()
        let listener = Task { for await _ in subscription {} }
        #expect(bus.subscriberCount == 1)
        listener.cancel()
        _ = await listener.value
        while bus.subscriberCount != 0 { await Task.yield() }
        bus.publish(1)
        #expect(bus.subscriberCount == 0)
    }
}
