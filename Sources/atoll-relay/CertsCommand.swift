import ArgumentParser
import AtollSync

struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Mint a development CA, the relay's certificate and one certificate per node.",
        discussion: """
            Writes DIR/ca.pem and DIR/ca-key.pem (the CA), DIR/relay.pem and DIR/relay-key.pem \
            (valid for localhost, 127.0.0.1 and ::1), and DIR/NAME.pem and DIR/NAME-key.pem for each \
            --node. Existing files are kept: run again with a new --node to add a node signed by the \
            same CA. Key files are created with mode 0600.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Directory to write the certificates into (created if missing).", valueName: "DIR"))
    var out: String

    @Option(name: .customLong("node"), help: ArgumentHelp("A node to issue a certificate for (repeatable).", valueName: "NAME"))
    var nodes: [String] = []

    func run() async throws {
        let outcome = try DevelopmentCertificateDirectory.create(at: out, nodes: nodes)
        for path in outcome.written { print("wrote \(path)") }
        for path in outcome.kept { print("kept  \(path)") }
    }
}
