import Foundation

/// Case and diacritic folding for the `[c]`, `[d]` and `[cd]` string modifiers, correct for all of
/// Unicode rather than only Latin.
///
/// Two strings match under a set of options when their folded scalar sequences are equal:
///
/// - `[c]` is Unicode *default caseless matching* (Unicode §3.13, D145): `NFD(caseFold(NFD(s)))`
///   with full case folding. So 'ß' = "ss" = "SS" = 'ẞ', 'ς' = 'σ' = 'Σ', 'ﬀ' = "ff", Cherokee
///   and Georgian pairs match, and the Turkish dotless 'ı' stays distinct from 'i' and 'I' (default,
///   not Turkish, folding). Canonically equivalent spellings match ('é' = "e\u{301}").
/// - `[d]` decomposes canonically (NFD) and removes nonspacing marks that carry the Unicode
///   `Diacritic` property: 'é' = 'e', 'Å' = 'A', Greek 'ά' = 'α', Vietnamese 'ệ' = 'e', Hebrew
///   points and Arabic harakat are ignored, Japanese 'が' = 'か'. Letters that have no canonical
///   decomposition keep their identity ('ø', 'ł', 'đ' do not match 'o', 'l', 'd').
/// - `[cd]` does both.
///
/// Folding never depends on a locale, so results are the same on every machine.
///
/// The case mapping comes from the Swift standard library's `Unicode.Scalar.Properties` (no
/// table of our own): a scalar that does not change when case folded is kept, and any other is
/// mapped through lowercase → uppercase → lowercase, with a scalar that still changes when case
/// folded (only lowercase Cherokee) mapped to its uppercase, as CaseFolding.txt does. This equals
/// the full case folding (status C + F) for every scalar; the test suite checks it exhaustively.
///
/// ```swift
/// UnicodeFolding.fold("Straße", options: .caseInsensitive) == UnicodeFolding.fold("STRASSE", options: .caseInsensitive) // true
/// UnicodeFolding.fold("Ελλάδα", options: .diacriticInsensitive)   // "Ελλαδα"
/// ```
public enum UnicodeFolding {
    /// The folded form of `text` under `options`, as a string (for tests, tooling and keys).
    ///
    /// O(n) in the length of `text`; allocates.
    public static func fold(_ text: String, options: StringComparisonOptions) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: foldedScalars(of: text, options: options))
        return String(view)
    }

    /// The folded scalars of `text`. With empty options, the scalars of `text` unchanged.
    static func foldedScalars(of text: String, options: StringComparisonOptions) -> [Unicode.Scalar] {
        if options.isEmpty { return Array(text.unicodeScalars) }
        var scalars = Array(text.decomposedStringWithCanonicalMapping.unicodeScalars)
        if options.contains(.caseInsensitive) {
            var folded = [Unicode.Scalar]()
            folded.reserveCapacity(scalars.count)
            var changedNonASCII = false
            for scalar in scalars {
                if caseFold(scalar, into: &folded) && scalar.value >= 0x80 { changedNonASCII = true }
            }
            // A folded scalar can itself be decomposable (or reorder with its neighbours), so the
            // result is decomposed again, as D145 prescribes. Pure-ASCII changes cannot need it.
            if changedNonASCII {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: folded)
                folded = Array(String(view).decomposedStringWithCanonicalMapping.unicodeScalars)
            }
            scalars = folded
        }
        if options.contains(.diacriticInsensitive) {
            scalars.removeAll(where: isDiacriticMark)
        }
        return scalars
    }

    /// The folded scalars of the UTF-8 bytes in `utf8` (invalid sequences become U+FFFD).
    static func foldedScalars(ofUTF8 utf8: UnsafeRawBufferPointer, options: StringComparisonOptions) -> [Unicode.Scalar] {
        let text = String(decoding: utf8.bindMemoryAssumingUInt8(), as: UTF8.self)
        return foldedScalars(of: text, options: options)
    }

    /// Appends the full case folding of `scalar` to `output`; returns whether it differed.
    @discardableResult
    static func caseFold(_ scalar: Unicode.Scalar, into output: inout [Unicode.Scalar]) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            if value >= 0x41 && value <= 0x5A, let lower = Unicode.Scalar(value + 0x20) {
                output.append(lower)
                return true
            }
            output.append(scalar)
            return false
        }
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else {
            output.append(scalar)
            return false
        }
        for lower in properties.lowercaseMapping.unicodeScalars {
            for upper in lower.properties.uppercaseMapping.unicodeScalars {
                for candidate in upper.properties.lowercaseMapping.unicodeScalars {
                    if candidate.properties.changesWhenCaseFolded {
                        output.append(contentsOf: candidate.properties.uppercaseMapping.unicodeScalars)
                    } else {
                        output.append(candidate)
                    }
                }
            }
        }
        return true
    }

    /// Whether `[d]` removes `scalar`: a nonspacing mark with the Unicode `Diacritic` property.
    static func isDiacriticMark(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x300 else { return false }
        let properties = scalar.properties
        return properties.generalCategory == .nonspacingMark && properties.isDiacritic
    }

    /// Whether `scalar` attaches to the character before it (canonical combining class ≠ 0), so
    /// LIKE's `?` consumes it together with its base.
    static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x300 && scalar.properties.canonicalCombiningClass != .notReordered
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes as `UInt8`s, for APIs that want a typed buffer. Raw buffers of UTF-8 or binary
    /// values are always bytes, so the binding is sound.
    @inline(__always)
    func bindMemoryAssumingUInt8() -> UnsafeBufferPointer<UInt8> {
        guard let base = baseAddress else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)
    }
}
