/// The JSON Schema (draft 2020-12, with the draft-4/7 spellings applications still send)
/// that constrained decoding supports, parsed once at the boundary.
///
/// Supported, enforced by the grammar:
/// - `type` (one or a list), `enum` and `const` of any JSON value (objects and arrays written
///   compactly, members in the order given), `nullable`.
/// - Objects: `properties` (generated in declaration order; required ones always, optional ones
///   when the model wants), `required`, `additionalProperties` false, true or a schema, and
///   `minProperties`/`maxProperties`. Extra members are generated only when
///   `additionalProperties` is given as true or a schema: after the declared ones, with names of
///   1 to `Grammar.Options.maxKeyLength` characters that are neither a declared name nor one
///   already written (`GrammarConstraint` remembers those). Without it no extra member is
///   generated (the documents written are a subset of the valid ones). `maxProperties` keeps the optional
///   properties declared first; `minProperties` makes the first optional ones required, then
///   asks for extra members.
/// - Arrays: `items` (a schema or false), `prefixItems` (tuples), `minItems`, `maxItems`.
/// - Strings: `minLength`, `maxLength`, `pattern` (the ECMA-262 subset of `SchemaPattern`) and
///   `format` (`StringFormat`: date, time, date-time, uuid, email, uri, ipv4, hostname).
/// - Numbers and integers: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (the
///   number and the draft-4 boolean forms), exactly, by digit automata.
/// - `anyOf`/`oneOf` whose alternatives start with different characters, or that are objects
///   told apart by a property holding a different string `const` in each (a tagged union,
///   generated with that property first); sibling keywords apply to every alternative.
/// - `allOf`, merged into one schema (properties, required, bounds, types, enums); two parts
///   that constrain the same thing differently (two patterns, two formats) are refused.
/// - `$ref` to a JSON Pointer in the document (`#`, `#/$defs/…`, `#/definitions/…`),
///   recursive ones included: the grammar expands recursion to `Grammar.Options.maxRecursionDepth`
///   levels (a tree is generated at most that deep; the validator has no limit).
/// - `{}` and `true` (any JSON value: generated to `Grammar.Options.maxAnyDepth` levels of
///   nesting; an `anyOf` holding one is any value), `false` where it removes a property or an
///   item. A schema without `type` whose keywords all belong to one type generates that type.
///
/// Annotations (`title`, `description`, `default`, `examples`, `discriminator`, …) are ignored.
/// Anything else (`multipleOf`, `uniqueItems`, `patternProperties`, `not`, `if`, a nested `$id`,
/// …) is refused with `EngineError.unsupportedSchema` naming the keyword and its JSON Pointer,
/// never dropped.
package struct JSONSchema: Sendable, Equatable {
    /// What the schema allows.
    package indirect enum Shape: Sendable, Equatable {
        case object(ObjectShape)
        case array(items: Shape, minItems: Int, maxItems: Int?)
        /// `prefixItems`: one shape per leading item, then `rest` (nil: no more items).
        case tuple(prefix: [Shape], rest: Shape?, minItems: Int, maxItems: Int?)
        case string(minLength: Int, maxLength: Int?)
        /// A string with a `pattern` and/or a `format`.
        case text(TextShape)
        case number
        case integer
        /// A number or integer with bounds.
        case range(NumericRange)
        case boolean
        case null
        /// Exactly one of these values (`enum`, `const`).
        case literal([JSONValue])
        /// Any one of the alternatives; they start with different characters.
        case anyOf([Shape])
        /// Objects whose first member `key` holds one of the variants' tags and then that
        /// variant's members.
        case taggedUnion(key: String, variants: [Variant])
        /// The schema at this JSON Pointer (`definitions`): a recursive `$ref`.
        case reference(String)
        /// Any JSON value.
        case any
    }

    /// An object's properties, in generation order.
    package struct ObjectShape: Sendable, Equatable {
        package var properties: [Property]
        package var required: Set<String>
        /// The shape of members not declared in `properties` (nil: none may appear).
        package var additional: Shape?
        package var minProperties: Int
        package var maxProperties: Int?
        /// `additionalProperties: false` was given (rather than left out): the one case in which
        /// the lenient validator refuses an undeclared member.
        package var closed = false

        package init(properties: [Property], required: Set<String>, additional: Shape? = nil, minProperties: Int = 0,
                     maxProperties: Int? = nil) {
            self.properties = properties
            self.required = required
            self.additional = additional
            self.minProperties = minProperties
            self.maxProperties = maxProperties
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

    /// A string constrained by a pattern, a format, or both, and by its length in characters.
    package struct TextShape: Sendable, Equatable {
        package var pattern: SchemaPattern?
        package var format: StringFormat?
        package var minLength: Int
        package var maxLength: Int?
    }

    package var shape: Shape
    /// The targets of recursive `$ref`s, by JSON Pointer.
    package var definitions: [String: Shape]
    /// The schema document as given (or as built), for prompts.
    package var document: JSONValue

    package init(shape: Shape, document: JSONValue, definitions: [String: Shape] = [:]) {
        self.shape = shape
        self.document = document
        self.definitions = definitions
    }

    /// Parses a schema from JSON text.
    package init(json: String) throws(EngineError) {
        try self.init(document: JSONValue(parsing: json))
    }

    /// Interprets a parsed schema document.
    package init(document: JSONValue) throws(EngineError) {
        let reader = SchemaReader(root: document)
        self.document = document
        self.shape = try reader.root()
        self.definitions = reader.definitions
    }

    /// The shape with every `.reference` pointer passed through `rename` (to combine schemas
    /// from several documents, whose pointers would otherwise collide).
    package static func renamingReferences(_ shape: Shape, _ rename: (String) -> String) -> Shape {
        func object(_ o: ObjectShape) -> ObjectShape {
            var out = o
            out.properties = o.properties.map { .init($0.name, renamingReferences($0.shape, rename)) }
            out.additional = o.additional.map { renamingReferences($0, rename) }
            return out
        }
        switch shape {
        case .reference(let pointer): return .reference(rename(pointer))
        case .object(let o): return .object(object(o))
        case .array(let items, let minItems, let maxItems): return .array(items: renamingReferences(items, rename), minItems: minItems, maxItems: maxItems)
        case .tuple(let prefix, let rest, let minItems, let maxItems):
            return .tuple(prefix: prefix.map { renamingReferences($0, rename) }, rest: rest.map { renamingReferences($0, rename) },
                          minItems: minItems, maxItems: maxItems)
        case .anyOf(let list): return .anyOf(list.map { renamingReferences($0, rename) })
        case .taggedUnion(let key, let variants): return .taggedUnion(key: key, variants: variants.map { .init(tag: $0.tag, rest: object($0.rest)) })
        case .string, .text, .number, .integer, .range, .boolean, .null, .literal, .any: return shape
        }
    }
}
