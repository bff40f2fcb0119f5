/// A `namespace()` object. A class, so `{% set ns.x = … %}` inside a loop body changes the
/// object the enclosing scope sees, which is the point of namespaces.
final class NamespaceObject {
    var attributes: DictValue

    init(_ attributes: DictValue) {
        self.attributes = attributes
    }
}
