//! The process's memory: mimalloc for every binary, and a switch for long runs over big trees.

/// Scans and indexes allocate many small strings across threads, where mimalloc cuts
/// start-up and run time by a quarter against the system allocator (measured with
/// `make bench`). It asks for transparent huge pages; hermes-skill-scan turns them off
/// ([`without_huge_pages`]).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stops the kernel backing this process with transparent huge pages from now on.
///
/// A curation pass over 100,000 skills grows and frees hundreds of megabytes of short-lived
/// buffers; with huge pages every fresh 2 MiB is zeroed at its first touch, which was a
/// sixth of the run (`perf`), and the pass took 10.8–11.4 s against 8.6–9.1 s without.
/// Best effort: a kernel without the switch leaves things as they were.
pub fn without_huge_pages() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
