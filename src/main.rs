fn main() -> std::process::ExitCode {
    // When this process is the sandbox launcher, it does that job and never returns.
    classlab::exec::maybe_launch();
    // Behave like other Unix tools when the reader of our output goes away (`| head`):
    // end quietly instead of panicking on a broken pipe.
    // SAFETY: called once, before any other thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    classlab::cli::main()
}
