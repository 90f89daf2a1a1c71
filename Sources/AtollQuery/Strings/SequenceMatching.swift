/// The elements matched: bytes (ASCII rows and binary data) or Unicode scalars. Scalars know
/// whether they continue the character before them (combining marks), so that matches never
/// split a character.
protocol WildcardElement: Equatable {
    /// `*`: matches any run of characters, including none.
    static var anyRun: Self { get }
    /// `?`: matches exactly one character.
    static var anyOne: Self { get }
    /// Whether this element continues the character before it, so `?` consumes it as well.
    var continuesCharacter: Bool { get }
}

extension UInt8: WildcardElement {
    static var anyRun: UInt8 { UInt8(ascii: "*") }
    static var anyOne: UInt8 { UInt8(ascii: "?") }
    var continuesCharacter: Bool { false }
}

extension Unicode.Scalar: WildcardElement {
    static var anyRun: Unicode.Scalar { "*" }
    static var anyOne: Unicode.Scalar { "?" }
    var continuesCharacter: Bool { UnicodeFolding.isCombiningMark(self) }
}

/// The matching algorithms behind ``StringMatcher`` and ``BinaryMatcher``, written once over
/// random-access sequences of equatable elements so that the same code runs on raw bytes, on
/// lazily ASCII-lowercased bytes and on folded scalars. Generic and internal, so the optimizer
/// specializes every use: no existentials, no allocation.
enum SequenceMatching {
    /// O(n).
    @inline(__always)
    static func equal<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: Equatable>(
        _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        guard text.count == pattern.count else { return false }
        var t = text.startIndex, p = pattern.startIndex
        while p < pattern.endIndex {
            if text[t] != pattern[p] { return false }
            t += 1
            p += 1
        }
        return true
    }

    /// O(m) in the pattern length. The prefix must end at a character boundary: "É" (E + ◌́)
    /// does not begin with "E".
    @inline(__always)
    static func hasPrefix<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: WildcardElement>(
        _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        guard text.count >= pattern.count else { return false }
        return matchesAt(text, text.startIndex, pattern) && endsCharacter(text, at: text.startIndex + pattern.count)
    }

    /// O(m) in the pattern length.
    @inline(__always)
    static func hasSuffix<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: Equatable>(
        _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        guard text.count >= pattern.count else { return false }
        return matchesAt(text, text.endIndex - pattern.count, pattern)
    }

    /// O(n·m) worst case, O(n) typically (the first element is scanned for before comparing).
    /// A match must end at a character boundary.
    @inline(__always)
    static func contains<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: WildcardElement>(
        _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        guard let first = pattern.first else { return true }
        guard text.count >= pattern.count else { return false }
        var start = text.startIndex
        let lastStart = text.endIndex - pattern.count
        while start <= lastStart {
            if text[start] == first && matchesAt(text, start, pattern) && endsCharacter(text, at: start + pattern.count) {
                return true
            }
            start += 1
        }
        return false
    }

    /// Whether `index` is at the end of `text` or at the start of a new character.
    @inline(__always)
    private static func endsCharacter<Text: RandomAccessCollection<E>, E: WildcardElement>(_ text: Text, at index: Int) -> Bool
    where Text.Index == Int {
        index >= text.endIndex || !text[index].continuesCharacter
    }

    @inline(__always)
    private static func matchesAt<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: Equatable>(
        _ text: Text, _ offset: Int, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        var t = offset, p = pattern.startIndex
        while p < pattern.endIndex {
            if text[t] != pattern[p] { return false }
            t += 1
            p += 1
        }
        return true
    }

    /// Whether `text` matches the wildcard `pattern` (`*` any run, `?` one character).
    ///
    /// Iterative: on a mismatch it returns to the most recent `*` and lets it absorb one more
    /// character, which is enough because a later `*` can absorb anything an earlier one could.
    /// So the worst case is O(n·m) and there is no exponential backtracking.
    static func like<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: WildcardElement>(
        _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        var t = text.startIndex, p = pattern.startIndex
        var starPattern = -1, starText = t
        let textEnd = text.endIndex, patternEnd = pattern.endIndex

        func nextCharacter(after index: Int) -> Int {
            var next = index + 1
            while next < textEnd && text[next].continuesCharacter { next += 1 }
            return next
        }

        while t < textEnd {
            if p < patternEnd {
                let element = pattern[p]
                if element == E.anyRun {
                    starPattern = p
                    starText = t
                    p += 1
                    continue
                }
                if element == E.anyOne {
                    t = nextCharacter(after: t)
                    p += 1
                    continue
                }
                // A literal matches when the characters agree: "e" does not match the "e" of
                // "e◌́" unless the pattern continues with the same mark.
                if element == text[t] {
                    let nextPatternContinues = p + 1 < patternEnd && pattern[p + 1].continuesCharacter
                    if nextPatternContinues || t + 1 >= textEnd || !text[t + 1].continuesCharacter {
                        t += 1
                        p += 1
                        continue
                    }
                }
            }
            guard starPattern >= 0 else { return false }
            p = starPattern + 1
            starText = nextCharacter(after: starText)
            t = starText
        }
        while p < patternEnd && pattern[p] == E.anyRun { p += 1 }
        return p == patternEnd
    }
}

/// ASCII helpers for the allocation-free fast paths.
enum ASCII {
    /// Whether every byte is < 0x80. Reads eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if base.load(fromByteOffset: index, as: UInt8.self) >= 0x80 { return false }
            index += 1
        }
        return true
    }

    @inline(__always)
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isASCII($0) }
    }

    /// 'A'...'Z' → 'a'...'z'; every other byte unchanged.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }
}
