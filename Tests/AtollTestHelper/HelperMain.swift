import AtollStorage

@main
struct AtollTestHelper {
    static func main() {
        print("atoll-test-helper")
    }
}
