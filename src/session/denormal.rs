//! Flush-to-zero for the duration of a run, as TensorFlow's executor does
//! (`port::ScopedFlushDenormal`): float arithmetic on denormal numbers is many times
//! slower, and optimizer state such as Adam's second moment drifts into that range.

/// Sets the FTZ and DAZ bits of this thread's MXCSR while alive; restores them on drop.
pub(crate) struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    pub(crate) fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: reading and writing MXCSR only changes this thread's float rounding
            // of denormals; every x86_64 CPU has SSE.
            #[allow(deprecated)]
            let saved = unsafe { std::arch::x86_64::_mm_getcsr() };
            #[allow(deprecated)]
            unsafe {
                std::arch::x86_64::_mm_setcsr(saved | 0x8040)
            };
            FlushDenormals { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: restores the value read in `new`.
        #[allow(deprecated)]
        unsafe {
            std::arch::x86_64::_mm_setcsr(self.saved)
        };
    }
}
