/// The subset of JSON Schema that constrained decoding supports, parsed once at the boundary.
///
/// Supported: `type` object (`properties`, `required`; only declared properties are ever
/// generated, in declaration order), array (`items`, `minItems`, `maxItems`), string
/// (`minLength`, `maxLength`), number, integer, boolean, null, a list of types; `enum` and
/// `const`; `anyOf` / `oneOf` whose alternatives start with different characters (e.g. string |
/// null), or that are all objects told apart by a `const` first property (a tagged union, as
/// tool calls are); annotations (`title`, `description`, `default`, `examples`, `$schema`, …) are
/// ignored. Anything else (`pattern`, `format`, `minimum`, `$ref`, …) is refused with
/// `EngineError.unsupportedSchema`, never silently dropped.
package struct JSONSchema: Sendable, Equatable {
    /// What the schema allows.
    package indirect enum Shape: Sendable, Equatable {
        case object(ObjectShape)
        case array(items: Shape, minItems: Int, maxItems: Int?)
        case string(minLength: Int, maxLength: Int?)
        case number
        case integer
        case boolean
        case null
        /// Exactly one of these values (`enum`, `const`).
        case literal([JSONValue])
        /// Any one of the alternatives; they start with different characters.
        case anyOf([Shape])
        /// Objects whose first member `key` holds one of the variants' tags and then that
        /// variant's members.
        case taggedUnion(key: String, variants: [Variant])
    }

    /// An object's properties, in generation order.
    package struct ObjectShape: Sendable, Equatable {
        package var properties: [Property]
        package var required: Set<String>
        package init(properties: [Property], required: Set<String>) {
            self.properties = properties
            self.required = required
        }
    }

    package struct Property: Sendable, Equatable {
        package var name: String
        package var shape: Shape
        package init(_ name: String, _ shape: Shape) {
            self.name = name
            self.shape = shape
        }
    }

    /// One alternative of a tagged union: the tag value and the members after the tag.
    package struct Variant: Sendable, Equatable {
        package var tag: String
        package var rest: ObjectShape
        package init(tag: String, rest: ObjectShape) {
            self.tag = tag
            self.rest = rest
        }
    }

    package var shape: Shape
    /// The schema document as given (or as built), for prompts.
    package var document: JSONValue

    package init(shape: Shape, document: JSONValue) {
        self.shape = shape
        self.document = document
    }

    /// Parses a schema from JSON text.
    package init(json: String) throws(EngineError) {
        try self.init(document: JSONValue(parsing: json))
    }

    /// Interprets a parsed schema document.
    package init(document: JSONValue) throws(EngineError) {
        self.document = document
        self.shape = try SchemaReader().shape(document, path: "#")
    }
}
