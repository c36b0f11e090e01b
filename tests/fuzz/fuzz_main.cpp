// libsystemc references sc_main (declared extern "C" by SystemC); libFuzzer's main() runs
// instead and never calls it.
extern "C" int sc_main(int, char*[]) { return 0; }
