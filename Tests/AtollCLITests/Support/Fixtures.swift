/// A schema with every property type, links in both directions, a self link, a class without a
/// primary key, and an inverse relationship.
enum Fixtures {
    static let schema = """
    [
      {"name": "Person", "primaryKey": "name", "properties": {
        "name": "string",
        "age": "int?",
        "best": "Person",
        "dogs": "Dog[]",
        "born": "date?",
        "photo": "data?",
        "score": "double",
        "ratio": "float?",
        "member": "bool",
        "card": "uuid?",
        "ref": "objectId?",
        "nicknames": "string[]"
      }},
      {"name": "Dog", "primaryKey": "id", "properties": {
        "id": "int",
        "name": {"type": "string", "indexed": true},
        "age": "int?",
        "owner": "Person",
        "collar": "Collar",
        "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}
      }},
      {"name": "Collar", "properties": {"color": "string", "size": "int"}}
    ]
    """

    /// Links by primary key before their targets appear, across classes, a self link and a link
    /// to an enclosing object.
    static let data = """
    {
      "Dog": [
        {"id": 1, "name": "Rex", "age": 3, "owner": "ali", "collar": {"color": "red", "size": 2}},
        {"id": 2, "name": "Fido", "age": 5, "owner": {"name": "bo", "score": 1.5, "member": false, "best": "ali", "dogs": [2]}},
        {"id": 3, "name": "Bolt", "age": null}
      ],
      "Person": [
        {"name": "ali", "age": 41, "best": "ali", "dogs": [3, 1], "born": "1983-04-05T06:07:08.123456789Z",
         "photo": "AAEC/w==", "score": -0.0, "ratio": 0.1, "member": true,
         "card": "5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a", "ref": "65f1c0d2a1b2c3d4e5000001", "nicknames": ["al", "a"]}
      ]
    }
    """
}
