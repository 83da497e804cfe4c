fn main() -> std::process::ExitCode {
    classlab::cli::main()
}
