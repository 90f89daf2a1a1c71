public import AtollStorage
public import Foundation

/// One lexical unit of a query string, with the UTF-8 offset where it starts.
struct Token: Sendable, Equatable {
    var kind: TokenKind
    var offset: Int
}

/// What a token is.
enum TokenKind: Sendable, Equatable {
    /// A bare word: a property or class name, or a keyword such as `AND` (the parser decides,
    /// case-insensitively, by context).
    case word(String)
    /// `#name`: a name that is never a keyword, so properties called `limit` or `in` stay usable.
    case escapedName(String)
    /// `$name`: a SUBQUERY variable (stored without the `$`).
    case variable(String)
    /// `$0`, `$1`, …: a positional argument.
    case argument(Int)
    /// `%@`, `%d`, `%f`, `%K` (and the C length-modified forms `%ld`, `%lld`, `%lu`, `%i`, `%lf`).
    case formatSpecifier(FormatSpecifier)
    /// `@count`, `@size`, `@min`, `@max`, `@sum`, `@avg`, `@links` (stored without the `@`).
    case atName(String)
    case literal(LiteralValue)
    case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket, comma, dot
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case and, or, not
    case end

    /// How the token reads in an error message.
    var displayName: String {
        switch self {
        case .word(let name): "'\(name)'"
        case .escapedName(let name): "'#\(name)'"
        case .variable(let name): "'$\(name)'"
        case .argument(let index): "'$\(index)'"
        case .formatSpecifier(let specifier): "'\(specifier.rawValue)'"
        case .atName(let name): "'@\(name)'"
        case .literal(let value): value.displayText
        case .leftParen: "'('"
        case .rightParen: "')'"
        case .leftBrace: "'{'"
        case .rightBrace: "'}'"
        case .leftBracket: "'['"
        case .rightBracket: "']'"
        case .comma: "','"
        case .dot: "'.'"
        case .equal: "'=='"
        case .notEqual: "'!='"
        case .less: "'<'"
        case .lessOrEqual: "'<='"
        case .greater: "'>'"
        case .greaterOrEqual: "'>='"
        case .and: "'&&'"
        case .or: "'||'"
        case .not: "'!'"
        case .end: "the end of the query"
        }
    }
}

/// Reserved words. Matching is case-insensitive (`and`, `AND`, `And`).
enum Keyword: String, Sendable, CaseIterable {
    case and = "AND", or = "OR", not = "NOT"
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    case between = "BETWEEN", `in` = "IN"
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
    case matches = "MATCHES"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case `true` = "TRUE", `false` = "FALSE", yes = "YES", no = "NO"
    case `nil` = "NIL", null = "NULL"
    case subquery = "SUBQUERY"

    private static let byUppercasedName: [String: Keyword] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) }
    )

    init?(caseInsensitive word: String) {
        guard word.utf8.count <= 14, let keyword = Self.byUppercasedName[word.uppercased()] else { return nil }
        self = keyword
    }
}

/// The `%` placeholders of NSPredicate format strings. Each takes the next argument in order.
public enum FormatSpecifier: String, Sendable, Hashable {
    /// `%@`: any value.
    case object = "%@"
    /// `%d` (also `%i`, `%ld`, `%lld`, `%u`, `%lu`, `%llu`): an integer.
    case integer = "%d"
    /// `%f` (also `%lf`): a floating-point number.
    case floatingPoint = "%f"
    /// `%K`: a key path, given as a string argument.
    case keyPath = "%K"
}

/// A constant written in the query.
public enum LiteralValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// `B64"…"`.
    case base64([UInt8])
    /// `YYYY-MM-DD@HH:MM:SS[:ns]` or `T<seconds>:<nanoseconds>`; seconds and nanoseconds have the
    /// same sign (Realm's timestamp convention).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case uuid(UUID)
    case objectId(ObjectId)

    var displayText: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "'\(value)'"
        case .base64(let bytes): "B64 data (\(bytes.count) bytes)"
        case .timestamp(let seconds, let nanoseconds): "T\(seconds):\(nanoseconds)"
        case .uuid(let value): "uuid(\(value.uuidString.lowercased()))"
        case .objectId(let value): "oid(\(value))"
        }
    }
}
