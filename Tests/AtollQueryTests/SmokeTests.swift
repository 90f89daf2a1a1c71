import AtollQuery
import Testing

@Suite struct SmokeTests {
    @Test func bindsASimpleQuery() throws {
        #expect(try bound("age > 3") == "age > int(3)")
    }
}
