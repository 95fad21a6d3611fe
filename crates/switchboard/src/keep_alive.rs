//! The idle keep-alive limit, distinct from the header-read limit.
//!
//! hyper has one timer for both: its header-read timeout starts as soon as a connection waits
//! for a request, so a kept-alive connection's idle time and a slow client's header time share
//! one limit. Each connection here gets its own [`ConnTimer`] and its reads go through
//! [`Watched`], which notes when the first byte of the next request arrives: until then the
//! connection is idle and may wait `keep_alive` (a fresh connection, which has sent nothing
//! yet, only `header_read`: a silent new connection is a slow client, not a kept-alive one);
//! from the first byte on, the rest of the head must arrive within `header_read`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use hyper_util::rt::TokioTimer;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// When the first byte after the timer was armed arrived, and who waits to hear it.
#[derive(Default)]
pub struct Activity(Mutex<Seen>);

#[derive(Default)]
struct Seen {
    first_read: Option<Instant>,
    waker: Option<Waker>,
}

impl Activity {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read(&self) {
        let mut seen = self.seen();
        if seen.first_read.is_none() {
            seen.first_read = Some(Instant::now());
            if let Some(w) = seen.waker.take() {
                w.wake();
            }
        }
    }

    fn arm(&self) {
        *self.seen() = Seen::default();
    }

    /// The first byte's arrival, or `None` after registering `waker` for it.
    fn first_read(&self, waker: &Waker) -> Option<Instant> {
        let mut seen = self.seen();
        if seen.first_read.is_none() {
            seen.waker = Some(waker.clone());
        }
        seen.first_read
    }
}

/// A connection's socket, noting reads in its [`Activity`].
pub struct Watched<T> {
    io: T,
    activity: Arc<Activity>,
}

impl<T> Watched<T> {
    pub fn new(io: T, activity: Arc<Activity>) -> Self {
        Watched { io, activity }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// One connection's timer: hyper asks it for the header-read timeout of each request.
pub struct ConnTimer {
    activity: Arc<Activity>,
    header_read: Duration,
    keep_alive: Duration,
    served: AtomicBool,
    tokio: TokioTimer,
}

impl ConnTimer {
    pub fn new(activity: Arc<Activity>, header_read: Duration, keep_alive: Duration) -> Self {
        ConnTimer {
            activity,
            header_read,
            keep_alive,
            served: AtomicBool::new(false),
            tokio: TokioTimer::new(),
        }
    }
}

impl Timer for ConnTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.tokio.sleep(duration)
    }

    /// hyper's header-read timeout (it asks for a new one per request; the deadline it passes
    /// is its own single limit, replaced here by the two).
    fn sleep_until(&self, _deadline: Instant) -> Pin<Box<dyn Sleep>> {
        let kept_alive = self.served.swap(true, Ordering::Relaxed);
        let idle = if kept_alive {
            self.keep_alive
        } else {
            self.header_read
        };
        self.activity.arm();
        let now = tokio::time::Instant::now();
        Box::pin(HeadTimeout {
            activity: self.activity.clone(),
            header_read: self.header_read,
            sleep: Box::pin(tokio::time::sleep_until(now + idle)),
        })
    }
}

/// Ends when the connection stayed idle too long, or its head took too long from its first
/// byte.
struct HeadTimeout {
    activity: Arc<Activity>,
    header_read: Duration,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl Sleep for HeadTimeout {}

impl Future for HeadTimeout {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            let fired = self.sleep.as_mut().poll(cx).is_ready();
            let Some(first) = self.activity.first_read(cx.waker()) else {
                // Still idle: the idle limit decides.
                return if fired {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                };
            };
            let head_deadline = tokio::time::Instant::from_std(first + self.header_read);
            if head_deadline <= tokio::time::Instant::now() {
                return Poll::Ready(());
            }
            if head_deadline == self.sleep.deadline() {
                return Poll::Pending;
            }
            // A request began: from now on only the header-read limit applies.
            self.sleep.as_mut().reset(head_deadline);
        }
    }
}
