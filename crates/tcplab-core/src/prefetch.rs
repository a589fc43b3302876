//! Cache prefetch hints. A hint changes no result: it only asks the CPU to start loading a cache
//! line that the simulation will read soon, so that the load overlaps other work.

/// Starts loading the cache line that holds `value`.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint, and the address is that of a live reference.
        unsafe { _mm_prefetch(value as *const T as *const i8, _MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Starts loading every cache line of `value`.
#[inline]
pub fn prefetch_all<T>(value: &T) {
    let start = value as *const T as *const u8;
    for offset in (0..std::mem::size_of::<T>()).step_by(64) {
        // SAFETY: the address lies within `value`; `prefetch` only reads it as a hint.
        prefetch(unsafe { &*start.add(offset) });
    }
}
