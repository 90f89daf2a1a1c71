import AtollStorage
import GRDB

@main
struct AtollBench {
    static func main() {
        print("ok")
    }
}
