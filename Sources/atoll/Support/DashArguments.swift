/// Command-line words that begin with '-' but are not options: a predicate such as
/// `"-1 < age"`, a value such as `-5`, a path such as `-old.atoll`.
///
/// The parser reads every such word as options: `"-1 < age"` is an unknown option, and
/// `"-height > 3"` the flag cluster `-h -e -i ...`, which asked for help and exited 0. `atoll`
/// has no short option but `-h`, so a word of one dash and more characters is never an option.
/// Such a word is refused before parsing, with status 64 and the command line that works: the
/// word after `--`, or an option's value written `--option=VALUE`. Values of `--arg` may begin
/// with '-' as they are (`--arg -5`).
enum DashArguments {
    /// Options whose value is the next word whatever it begins with (`parsing: .unconditionalSingleValue`).
    static let unconditionalOptions: Set<String> = ["--arg"]

    /// Fails for the first word (before `--`) that begins with a single '-' and is not `-h`.
    static func check(_ arguments: [String]) throws {
        var valueFollows = false
        for word in arguments {
            if valueFollows {
                valueFollows = false
                continue
            }
            if word == "--" { return }
            if unconditionalOptions.contains(word) { valueFollows = true; continue }
            if word.hasPrefix("-"), !word.hasPrefix("--"), word != "-h" { throw failure(for: word, in: arguments) }
        }
    }

    /// The usage failure for `word`, with the command line that works.
    static func failure(for word: String, in arguments: [String]) -> CLIFailure {
        // Positional words keep their order and options may come first: the words that begin
        // with '-' go last, after `--`.
        var others: [String] = [], dashed: [String] = []
        var valueFollows = false
        for w in arguments {
            if !valueFollows, w.hasPrefix("-"), !w.hasPrefix("--"), w != "-h" { dashed.append(w) } else { others.append(w) }
            valueFollows = unconditionalOptions.contains(w)
        }
        let suggestion = (["atoll"] + others + ["--"] + dashed).map(quoted).joined(separator: " ")
        return CLIFailure(.usage, "\(quoted(word)) begins with '-' and would be read as options; put -- before such arguments (\(suggestion)), or write an option's value as --option=VALUE")
    }

    /// `word`, single-quoted for a POSIX shell when it needs quoting.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
