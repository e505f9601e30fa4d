fn main() -> std::process::ExitCode {
    sleuth::cli::main()
}
