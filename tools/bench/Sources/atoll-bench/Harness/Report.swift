#if canImport(Glibc)
import Glibc
#endif

/// Prints a suite's measurements: progress to stderr while it runs, then either the human table
/// or one JSON object per line on stdout.
final class Reporter {
    let json: Bool
    private(set) var measurements: [Measurement] = []

    init(json: Bool) { self.json = json }

    /// Records a measurement; announces it on stderr so long runs show progress.
    func add(_ m: Measurement) {
        measurements.append(m)
        let figures = [m.atoll.map { "atoll " + Format.number($0) }, m.sqlite.map { "sqlite " + Format.number($0) }]
            .compactMap { $0 }.joined(separator: ", ")
        progress("\(m.suite) \(m.name): \(figures.isEmpty ? (m.note ?? "-") : figures + " " + m.unit.symbol)")
    }

    /// Prints everything recorded, after a header of machine facts (human form only).
    func finish(header: [String]) {
        if json {
            for m in measurements { print(JSONLine.encode(m)) }
        } else {
            for line in header { print(line) }
            print("")
            print(TableFormatter.render(measurements))
            let notes = measurements.compactMap { m in m.note.map { "  \(m.name): \($0)" } }
            if !notes.isEmpty {
                print("\nNotes:")
                for n in notes { print(n) }
            }
        }
        fflush(nil)
    }
}

/// A progress line on stderr (never mixed into JSON output).
func progress(_ message: String) {
    writeStandardError(message + "\n")
}

func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

enum TableFormatter {
    static let columns = ["workload", "atoll", "sqlite", "unit", "ratio", "target"]

    static func render(_ measurements: [Measurement]) -> String {
        var rows: [[String]] = [columns]
        for m in measurements {
            var target = m.target.label
            if let met = m.meetsTarget { target += met ? "  ok" : "  MISSED" }
            rows.append([
                m.name,
                m.atoll.map(Format.number) ?? (m.note != nil ? "n/a" : "-"),
                m.sqlite.map(Format.number) ?? "-",
                m.unit.symbol,
                m.ratio.map { Format.number($0) + "x" } ?? "-",
                target,
            ])
        }
        var widths = [Int](repeating: 0, count: columns.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        // Text columns align left, figures right.
        let rightAligned: Set<Int> = [1, 2, 4]
        var lines: [String] = []
        for (r, row) in rows.enumerated() {
            var cells: [String] = []
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                cells.append(rightAligned.contains(i) ? pad + cell : cell + pad)
            }
            lines.append(cells.joined(separator: "  ").trimmingTrailingSpaces())
            if r == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        return lines.joined(separator: "\n")
    }
}

enum JSONLine {
    /// `{"suite":"storage","name":...,"value":...,"unit":...}` for Atoll-only figures,
    /// `{"suite":"compare","name":...,"atoll":...,"sqlite":...,"unit":...,"ratio":...}` for
    /// side-by-side figures. Missing figures are null; a note is added when present.
    static func encode(_ m: Measurement) -> String {
        var fields: [(String, String)] = [("suite", string(m.suite)), ("name", string(m.name))]
        if m.isSideBySide {
            fields += [("atoll", number(m.atoll)), ("sqlite", number(m.sqlite)), ("unit", string(m.unit.symbol)),
                       ("ratio", number(m.ratio))]
        } else {
            fields += [("value", number(m.atoll)), ("unit", string(m.unit.symbol))]
        }
        if let note = m.note { fields.append(("note", string(note))) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static func number(_ value: Double?) -> String {
        guard let v = value, v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

enum Format {
    /// Figures for people: grouped integers from 100 up, three significant digits below.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return String(v) }
        let magnitude = abs(v)
        if magnitude >= 100 { return grouped(Int64(v.rounded())) }
        if magnitude == 0 { return "0" }
        let decimals = magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : min(6, Int((-log10(magnitude)).rounded(.down)) + 3)
        return fixed(v, decimals: decimals)
    }

    static func grouped(_ n: Int64) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0, (digits.count - i).isMultiple(of: 3) { out.append(",") }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func fixed(_ v: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        let whole = Int64(scaled / scale)
        let fraction = Int64(scaled - Double(whole) * scale)
        var f = String(fraction)
        f = String(repeating: "0", count: max(0, decimals - f.count)) + f
        return (v < 0 ? "-" : "") + String(whole) + (decimals > 0 ? "." + f : "")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
