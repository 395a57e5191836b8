//! The process's memory: mimalloc for every binary, and a switch for long runs over big trees.

/// Scans and indexes allocate many small strings across threads, where mimalloc cuts
/// start-up and run time by a quarter against the system allocator (measured with
/// `make bench`). It asks for transparent huge pages; hermes-skill-scan and hermes-curate
/// turn them off before `main` ([`without_huge_pages_from_the_start`]).
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

/// Calls [`without_huge_pages`] from the program's constructors, before `main`, in the
/// binary that invokes it (once, at the top level). The standard library's start-up
/// allocates before `main`, and that first allocation is when the allocator touches its
/// memory: called from `main`, the switch came after one huge page had been zeroed, 0.3 ms of
/// every start (a twentieth of a one-skill scan). Elsewhere there is no such switch, and
/// the macro adds nothing.
#[macro_export]
macro_rules! without_huge_pages_from_the_start {
    () => {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        #[used]
        #[unsafe(link_section = ".init_array")]
        static WITHOUT_HUGE_PAGES: extern "C" fn() = {
            extern "C" fn without_huge_pages() {
                $crate::alloc::without_huge_pages();
            }
            without_huge_pages
        };
    };
}
