// verify, for embedded tables: every row has exactly one owner (Table+Embedded.swift), that is
// exactly one backlink entry with a count of one, from a table whose column links to this one.

extension Transaction {
    func verifyOwners(_ t: Table) throws {
        for key in try t.objectKeys() {
            let owners = try Backlinks.all(root: t.roots.backlinkRoot, target: key, space: space)
            let count = owners.reduce(0) { $0 + $1.count }
            guard count == 1, let owner = owners.first else {
                throw AtollError.corrupted("embedded object \(key.rawValue) of '\(t.name)' has \(count) owners; an embedded object has exactly one")
            }
            let origin = try table(owner.originTable)
            guard owner.originColumn < origin.spec.columns.count, origin.spec.columns[owner.originColumn].linkTarget == t.name,
                  try origin.contains(owner.originKey)
            else {
                throw AtollError.corrupted("embedded object \(key.rawValue) of '\(t.name)' names an owner that does not link to it")
            }
        }
    }
}
