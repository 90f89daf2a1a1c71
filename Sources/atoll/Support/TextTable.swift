/// An aligned text table: a header, a rule, and one line per row; columns are separated by two
/// spaces and padded to their widest cell (counted in characters).
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var s = ""
            for (i, cell) in cells.enumerated() {
                let last = i == cells.count - 1
                s += cell
                if !last { s += String(repeating: " ", count: widths[i] - cell.count + 2) }
            }
            return s + "\n"
        }
        var text = line(header)
        text += line(widths.map { String(repeating: "-", count: $0) })
        for row in rows { text += line(row) }
        return text
    }
}
