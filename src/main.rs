// Many short-lived allocations per parsed file (AST nodes, token vectors): mimalloc keeps
// the worker threads off glibc malloc's arena locks and free-list consolidation.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
