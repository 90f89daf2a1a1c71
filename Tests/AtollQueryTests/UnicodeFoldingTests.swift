@testable import AtollQuery
import Foundation
import Testing
import AtollTestSupport

private let c: StringComparisonOptions = .caseInsensitive
private let d: StringComparisonOptions = .diacriticInsensitive
private let cd: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]

/// `a == b` under `options`, through the same matcher the evaluator uses.
private func equal(_ a: String, _ b: String, _ options: StringComparisonOptions) -> Bool {
    StringMatcher(.equal, pattern: b, options: options).matches(a)
}

/// Case and diacritic folding across scripts: (a, b, options, whether they match).
@Suite struct UnicodeFoldingTests {
    static let table: [(String, String, StringComparisonOptions, Bool)] = [
        // ASCII and Latin.
        ("Hello", "hELLO", c, true),
        ("Hello", "hELLO", [], false),
        ("Hello", "hELLO", d, false),
        ("Straße", "STRASSE", c, true),
        ("straße", "strasse", c, true),
        ("ẞ", "ss", c, true),
        ("ﬁsh", "FISH", c, true),
        ("ǅ", "ǆ", c, true),
        ("Ǆ", "ǆ", c, true),
        ("Ǆ", "dž", c, false),
        ("\u{212A}elvin", "kelvin", c, true),
        ("café", "CAFÉ", c, true),
        ("café", "cafe", c, false),
        ("café", "cafe", d, true),
        ("Café", "cafe", d, false),
        ("Café", "cafe", cd, true),
        ("Ångström", "angstrom", cd, true),
        ("\u{212B}", "\u{00C5}", c, true),
        ("naïve façade", "NAIVE FACADE", cd, true),
        ("øre", "ore", cd, false),
        ("łódź", "lodz", cd, false),
        // Canonical equivalence counts under folding, not exactly.
        ("\u{00E9}", "e\u{0301}", c, true),
        ("\u{00E9}", "e\u{0301}", d, true),
        ("\u{00E9}", "e\u{0301}", [], false),
        ("a\u{0323}\u{0301}", "a\u{0301}\u{0323}", c, true),
        // Turkish dotted and dotless i under default (not Turkish) folding.
        ("I", "i", c, true),
        ("ı", "i", c, false),
        ("ı", "I", c, false),
        ("İ", "i", c, false),
        ("İ", "i\u{0307}", c, true),
        ("İ", "i", cd, true),
        ("ı", "ı", c, true),
        // Greek: final sigma, tonos, dialytika.
        ("ΣΊΣΥΦΟΣ", "σίσυφος", c, true),
        ("ΣΊΣΥΦΟΣ", "σισυφος", c, false),
        ("ΣΊΣΥΦΟΣ", "σισυφος", cd, true),
        ("Ελλάδα", "ελλαδα", cd, true),
        ("ά", "α", d, true),
        ("ΐ", "ι", cd, true),
        ("ΰ", "Ϋ́", c, true),
        ("ᾳ", "ΑΙ", c, true),
        // Cyrillic.
        ("ПРИВЕТ", "привет", c, true),
        ("Ёлка", "елка", cd, true),
        ("Ёлка", "елка", c, false),
        ("й", "и", d, true),
        // Armenian, Georgian, Cherokee, Deseret (outside the BMP), Adlam.
        ("ԱԲԳ", "աբգ", c, true),
        ("և", "ԵՒ", c, true),
        ("Ა", "ა", c, true),
        ("Ꭰ", "ꭰ", c, true),
        ("𐐀", "𐐨", c, true),
        ("𞤀", "𞤢", c, true),
        // Vietnamese.
        ("Tiếng Việt", "tieng viet", cd, true),
        ("Tiếng Việt", "tiếng việt", c, true),
        ("Tiếng Việt", "tieng viet", c, false),
        ("Đ", "đ", c, true),
        // Hebrew points and Arabic harakat are diacritics.
        ("שָׁלוֹם", "שלום", d, true),
        ("مُحَمَّد", "محمد", d, true),
        ("مُحَمَّد", "محمد", c, false),
        // Japanese voicing marks decompose and are diacritics; kana have no case.
        ("が", "か", d, true),
        ("ガ", "カ", d, true),
        ("ガ", "が", cd, false),
        // Devanagari: nukta is a diacritic, vowel signs are letters.
        ("क़", "क", d, true),
        ("कु", "क", d, false),
        // Hangul and CJK compare as themselves.
        ("한국어", "한국어", cd, true),
        ("한", "하", d, false),
        ("中文", "中文", c, true),
        ("中文", "中", c, false),
        // Full-width Latin has case.
        ("ＡＢＣ", "ａｂｃ", c, true),
        // Emoji and symbols are untouched.
        ("👍🏽", "👍🏽", cd, true),
        ("👍🏽", "👍", cd, false),
    ]

    @Test(arguments: table)
    func foldsAcrossScripts(_ a: String, _ b: String, _ options: StringComparisonOptions, _ expected: Bool) {
        #expect(equal(a, b, options) == expected, "\(a) vs \(b) \(options)")
        #expect(equal(b, a, options) == expected, "\(b) vs \(a) \(options) (symmetry)")
    }

    @Test func foldedFormsAreReadable() {
        #expect(UnicodeFolding.fold("Straße", options: c) == "strasse")
        #expect(UnicodeFolding.fold("Ελλάδα", options: d) == "Ελλαδα")
        #expect(UnicodeFolding.fold("Tiếng Việt", options: cd) == "tieng viet")
        #expect(UnicodeFolding.fold("Tiếng", options: []) == "Tiếng")
    }

    /// For every scalar that has case, our folding puts it in the same equivalence class as
    /// Foundation's (ICU's) case folding does, and folding is idempotent.
    @Test func caseFoldingAgreesWithFoundationForEveryCasedScalar() {
        var checked = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let properties = scalar.properties
            guard properties.changesWhenCaseFolded || properties.changesWhenLowercased || properties.changesWhenUppercased else { continue }
            checked += 1
            let text = String(scalar)
            let ours = UnicodeFolding.foldedScalars(of: text, options: c)
            let viaFoundation = UnicodeFolding.foldedScalars(of: text.folding(options: .caseInsensitive, locale: nil), options: c)
            #expect(ours == viaFoundation, "U+\(String(value, radix: 16))")
            #expect(!ours.contains { $0.properties.changesWhenCaseFolded }, "U+\(String(value, radix: 16)) folds to something that folds again")
            if scalar != "ı" {
                #expect(UnicodeFolding.foldedScalars(of: properties.lowercaseMapping, options: c) == ours, "U+\(String(value, radix: 16)) and its lowercase")
            }
        }
        #expect(checked > 2_500)
    }
}

/// BEGINSWITH, ENDSWITH, CONTAINS, LIKE and == on strings, each with the folding modes.
@Suite struct StringMatcherTests {
    static let table: [(StringOperation, String, String, StringComparisonOptions, Bool)] = [
        (.beginsWith, "Hello world", "Hello", [], true),
        (.beginsWith, "Hello world", "hello", [], false),
        (.beginsWith, "Hello world", "hello", c, true),
        (.beginsWith, "Éclair", "e", cd, true),
        (.beginsWith, "Éclair", "E", d, true),
        (.beginsWith, "Éclair", "e", d, false),
        (.beginsWith, "Éclair", "e", c, false),
        (.beginsWith, "Éclair", "é", c, true),
        (.contains, "Crème", "cre", c, false),
        (.contains, "Crème", "crè", c, true),
        (.contains, "e\u{301}", "\u{301}", c, true),
        (.beginsWith, "eclair", "É", cd, true),
        (.beginsWith, "Hi", "Hello", [], false),
        (.beginsWith, "Hello", "", [], true),       // every string begins with "" (realm-core)
        (.beginsWith, "", "", [], true),
        (.endsWith, "Hello world", "world", [], true),
        (.endsWith, "Hello world", "WORLD", c, true),
        (.endsWith, "naïve", "IVE", cd, true),
        (.endsWith, "straße", "SSE", c, true),
        (.endsWith, "Hello", "", c, true),
        (.contains, "Hello world", "lo w", [], true),
        (.contains, "Hello world", "LO W", [], false),
        (.contains, "Hello world", "LO W", c, true),
        (.contains, "Projects with Pie", "ie", [], true),
        (.contains, "Crème brûlée", "creme brulee", cd, true),
        (.contains, "Crème brûlée", "brulee", c, false),
        (.contains, "ΑΘΗΝΑ", "θην", c, true),
        (.contains, "日本語のテキスト", "テキ", [], true),
        (.contains, "abc", "abcd", [], false),
        (.contains, "aaab", "aab", [], true),
        (.contains, "abc", "", [], true),
        (.contains, "STRASSE", "ß", c, true),
        (.contains, "straße", "SS", c, true),
        (.equal, "", "", [], true),
        (.equal, "", "", cd, true),
        (.equal, "a", "", [], false),
        (.equal, "ﬃ", "FFI", c, true),
        (.like, "dog", "d?g", [], true),
        (.like, "ding", "d?g", [], false),
        (.like, "DOG", "d?g", c, true),
    ]

    @Test(arguments: table)
    func matches(_ operation: StringOperation, _ text: String, _ pattern: String, _ options: StringComparisonOptions, _ expected: Bool) {
        #expect(StringMatcher(operation, pattern: pattern, options: options).matches(text) == expected)
    }

    @Test func matchesRawUTF8Buffers() {
        let matcher = StringMatcher(.contains, pattern: "WORLD", options: c)
        let bytes = Array("hello world".utf8)
        #expect(bytes.withUnsafeBytes { matcher.matches($0) })
        #expect(UnsafeRawBufferPointer(start: nil, count: 0).count == 0)
        #expect(!matcher.matches(UnsafeRawBufferPointer(start: nil, count: 0)))
        #expect(StringMatcher(.equal, pattern: "").matches(UnsafeRawBufferPointer(start: nil, count: 0)))
        let patternBytes = Array("wor".utf8)
        let fromBytes = patternBytes.withUnsafeBytes { StringMatcher(.contains, utf8: $0) }
        #expect(fromBytes.matches("hello world"))
    }

    @Test func invalidUTF8NeverCrashes() {
        let invalid: [UInt8] = [0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x61]
        for operation in StringOperation.allCases {
            for options in [[], c, d, cd] as [StringComparisonOptions] {
                let matcher = StringMatcher(operation, pattern: "a?*", options: options)
                _ = invalid.withUnsafeBytes { matcher.matches($0) }
            }
        }
    }

    @Test func longASCIIRowsMatchOnTheFastPath() {
        let row = String(repeating: "lorem ipsum dolor sit amet ", count: 2_000) + "NEEDLE"
        #expect(StringMatcher(.contains, pattern: "needle", options: c).matches(row))
        #expect(StringMatcher(.endsWith, pattern: "needle", options: cd).matches(row))
        #expect(!StringMatcher(.contains, pattern: "néédle", options: c).matches(row))
        #expect(StringMatcher(.contains, pattern: "néédle", options: cd).matches(row))
    }
}

/// LIKE: `?` is one character, `*` any run; no escapes; iterative matching.
@Suite struct LikeMatchingTests {
    static let table: [(String, String, StringComparisonOptions, Bool)] = [
        ("", "", [], true),
        ("", "*", [], true),
        ("", "**", [], true),
        ("", "?", [], false),
        ("a", "", [], false),
        ("a", "?", [], true),
        ("ab", "?", [], false),
        ("abc", "*", [], true),
        ("abc", "a*", [], true),
        ("abc", "*c", [], true),
        ("abc", "*b*", [], true),
        ("abc", "*d*", [], false),
        ("abc", "a?c", [], true),
        ("abc", "a??c", [], false),
        ("abc", "???", [], true),
        ("abc", "?*?", [], true),
        ("ab", "?*??", [], false),
        ("abcabc", "*abc", [], true),
        ("abcabd", "*abc", [], false),
        ("mississippi", "*issip*", [], true),
        ("mississippi", "m*i*s*p*i", [], true),
        ("mississippi", "m*x*", [], false),
        ("a*b", "a*b", [], true),
        ("a?b", "a?b", [], true),
        ("dog", "d?g", [], true),
        ("dig", "d?g", [], true),
        ("dug", "d?g", [], true),
        ("ding", "d?g", [], false),
        ("dg", "d?g", [], false),
        ("a dog", "d?g", [], false),
        // One `?` is one character, in either Unicode spelling.
        ("café", "caf?", [], true),
        ("cafe\u{0301}", "caf?", [], true),
        ("cafe\u{0301}", "cafe", [], false),
        ("café", "caf?", c, true),
        ("cafe\u{0301}", "CAF?", c, true),
        ("café", "cafe", d, true),
        ("日本", "??", [], true),
        ("日本", "?", [], false),
        ("😀x", "?x", [], true),
        ("ΣΊΣΥΦΟΣ", "σ*ς", c, true),
        ("ΣΊΣΥΦΟΣ", "σ?συφος", cd, true),
        ("Straße", "STRA*E", c, true),
        ("Straße", "stra??e", c, true),
        ("Élan", "e*", cd, true),
        ("Élan", "e*", c, false),
    ]

    @Test(arguments: table)
    func like(_ text: String, _ pattern: String, _ options: StringComparisonOptions, _ expected: Bool) {
        #expect(StringMatcher(.like, pattern: pattern, options: options).matches(text) == expected, "'\(text)' LIKE\(options) '\(pattern)'")
    }

    @Test func adversarialPatternsFinishQuickly() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let row = String(repeating: "a", count: 20_000)
            #expect(!StringMatcher(.like, pattern: "*a*a*a*a*a*a*a*a*a*b").matches(row))
            #expect(!StringMatcher(.like, pattern: "*a*a*a*a*a*a*a*a*a*b", options: c).matches(row))
            #expect(StringMatcher(.like, pattern: "*a*a*a*a*a*a*a*a*a*a").matches(row))
            #expect(!StringMatcher(.contains, pattern: String(repeating: "a", count: 200) + "b").matches(row))
        }
        #expect(elapsed < .seconds(5))
    }
}

/// Binary data: the same operators on bytes; `[c]` is ASCII-only, `[d]` has no effect.
@Suite struct BinaryMatcherTests {
    static let table: [(StringOperation, [UInt8], [UInt8], StringComparisonOptions, Bool)] = [
        (.equal, [1, 2, 3], [1, 2, 3], [], true),
        (.equal, [1, 2, 3], [1, 2], [], false),
        (.beginsWith, [0x47, 0x49, 0x46, 0x38], Array("GIF".utf8), [], true),
        (.beginsWith, [0x47, 0x49, 0x46, 0x38], Array("gif".utf8), [], false),
        (.beginsWith, [0x47, 0x49, 0x46, 0x38], Array("gif".utf8), c, true),
        (.endsWith, [0, 0, 0xFF], [0xFF], [], true),
        (.contains, [9, 8, 7, 6], [8, 7], [], true),
        (.contains, [9, 8, 7, 6], [], [], true),
        (.contains, Array("café".utf8), Array("CAFÉ".utf8), c, false),
        (.contains, Array("café".utf8), Array("cafe".utf8), d, false),
        (.like, [1, 0xC3, 0xA9, 2], [1, UInt8(ascii: "?"), UInt8(ascii: "?"), 2], [], true),
        (.like, [1, 0xC3, 0xA9, 2], [1, UInt8(ascii: "?"), 2], [], false),
        (.like, [1, 2, 3], [UInt8(ascii: "*"), 3], [], true),
        (.equal, [], [], [], true),
    ]

    @Test(arguments: table)
    func matches(_ operation: StringOperation, _ bytes: [UInt8], _ pattern: [UInt8], _ options: StringComparisonOptions, _ expected: Bool) {
        #expect(BinaryMatcher(operation, pattern: pattern, options: options).matches(bytes) == expected)
    }
}

/// The documented total order: Unicode scalar values (= UTF-8 bytes), nil first.
@Suite struct StringOrderingTests {
    @Test func sortsByScalarValue() {
        let strings = ["b", "a", "", "é", "Z", "ab", "😀", "ｚ", "e\u{0301}", "aa", "A"]
        let sorted = strings.sorted { StringOrdering.compare($0, $1) < 0 }
        #expect(sorted == ["", "A", "Z", "a", "aa", "ab", "b", "e\u{0301}", "é", "ｚ", "😀"])
    }

    @Test func byteOrderEqualsScalarOrder() {
        var generator = SeededGenerator(seed: 7)
        let alphabet: [Unicode.Scalar] = ["a", "B", "é", "ß", "Ω", "中", "😀", "\u{FFFF}", "\u{10000}", "\u{7F}", "\u{80}", "\u{0}"]
        for _ in 0..<2_000 {
            let a = String(String.UnicodeScalarView((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
            let b = String(String.UnicodeScalarView((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
            let byScalars = a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) { $0.value < $1.value }
            #expect((StringOrdering.compare(a, b) < 0) == byScalars, "\(a.debugDescription) vs \(b.debugDescription)")
        }
    }

    @Test func nilSortsFirst() {
        let bytes = Array("a".utf8)
        bytes.withUnsafeBytes { buffer in
            #expect(StringOrdering.compare(nil, buffer) < 0)
            #expect(StringOrdering.compare(buffer, nil) > 0)
            #expect(StringOrdering.compare(nil as UnsafeRawBufferPointer?, nil) == 0)
            #expect(StringOrdering.compare(buffer, UnsafeRawBufferPointer(start: nil, count: 0)) > 0)
        }
    }
}
