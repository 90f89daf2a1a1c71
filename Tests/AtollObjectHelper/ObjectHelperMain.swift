// atoll-object-helper: a child process for the object API's multi-process and misuse tests.
// Misuse commands stop the process with Atoll's message on stderr, which the parent checks.

import Atoll
import Foundation

/// The model the parent observes (Tests/AtollTests/ProcessNotificationTests.swift declares
/// the same class).
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var rank = 0
}

@main
struct AtollObjectHelper {
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    static func main() {
        let args = CommandLine.arguments
        guard args.count >= 2 else {
            FileHandle.standardError.write(Data("usage: AtollObjectHelper COMMAND [ARGS]\n".utf8))
            exit(2)
        }
        do {
            switch args[1] {
            case "write-notes":
                // write-notes PATH OPS: one transaction per op: +ID:RANK inserts, -ID deletes,
                // ~ID:TEXT renames.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Note.self]))
                for op in args[3...] {
                    let body = op.dropFirst()
                    let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
                    let id = Int(parts[0]) ?? 0
                    try realm.write {
                        switch op.first {
                        case "+": realm.create(Note.self, value: ["id": id, "rank": Int(parts.count > 1 ? parts[1] : "0") ?? 0])
                        case "-": if let n = realm.object(ofType: Note.self, forPrimaryKey: id) { realm.delete(n) }
                        case "~": realm.object(ofType: Note.self, forPrimaryKey: id)?.text = parts.count > 1 ? parts[1] : ""
                        default: break
                        }
                    }
                }
                say("done")
            case "read-off-thread":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1, "text": "x"]) }
                let handoff = Handoff(note)
                let thread = Thread { say("read \(handoff.value.text)") }
                thread.start()
                sleep(10)
            case "set-outside-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                note.text = "no write transaction"
            case "set-frozen":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                let frozen = note.freeze()
                try realm.write { frozen.text = "frozen" }
            case "observe-in-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                try realm.write {
                    let token = realm.objects(Note.self).observe { _ in }
                    token.invalidate()
                }
            case "read-deleted":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                try realm.write { realm.delete(note) }
                say("read \(note.text)")
            default:
                FileHandle.standardError.write(Data("unknown command \(args[1])\n".utf8))
                exit(2)
            }
        } catch {
            say("error \(error)")
            exit(1)
        }
    }
}

/// Passes a live object to another thread on purpose: the misuse under test.
struct Handoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
