//! The loader's one concurrency model: work on the artifacts in parallel,
//! consume the results in order on the calling thread.
//!
//! Both [`load`](crate::load) and [`refresh`](crate::refresh) run through
//! [`in_order`]: worker threads (one per core) take batches of
//! [`BATCH`] artifacts in ascending order from one shared counter, and the
//! calling thread consumes the batches in that same order as they arrive
//! (holding back the few that arrive early). Consuming is sequential (each
//! chain state is built from the last), so it overlaps the parallel work
//! instead of waiting for all of it. When the consumer stops (at the first
//! error in ingestion order), the workers stop after their current batch.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};

/// Items per batch: small enough that the last batches (whose consumption
/// cannot overlap anything) are a small part of a large root, large enough
/// that the hand-off costs nothing.
pub(crate) const BATCH: usize = 64;

/// Runs `work` on every item of `items` (each taken by value: it may own
/// what its work consumes) on worker threads (each worker with
/// its own state from `init`, e.g. an interner) and hands the results to
/// `consume` on this thread, in the order of `items`. Stops at the first
/// `Err` of `consume` and returns it; the items after it may or may not
/// have been worked on, and their results are dropped.
///
/// A panic in `work` is not caught: it reaches the caller when the workers
/// are joined.
///
/// `items` are taken by value and each batch is dropped once its results are
/// made: a load's list of 20 000 artifact directories (each with its
/// coordinate) no longer stays whole until its end, which is the peak of a
/// start.
pub(crate) fn in_order<T, R, S, E>(
    items: Vec<T>,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Send,
    R: Send,
{
    let batches = items.len().div_ceil(BATCH);
    let chunks = into_batches(items);
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(batches)
        .max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<(usize, Vec<R>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, stop, init, work, chunks) = (&next, &stop, &init, &work, &chunks);
            scope.spawn(move || {
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let batch = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = take_batch(chunks, batch) else {
                        break;
                    };
                    let results: Vec<R> = chunk
                        .into_iter()
                        .map(|item| work(&mut state, item))
                        .collect();
                    if sender.send((batch, results)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut early: BTreeMap<usize, Vec<R>> = BTreeMap::new();
        let mut result = Ok(());
        'batches: for batch in 0..batches {
            let results = loop {
                if let Some(results) = early.remove(&batch) {
                    break results;
                }
                match receiver.recv() {
                    Ok((b, results)) if b == batch => break results,
                    Ok((b, results)) => {
                        early.insert(b, results);
                    }
                    // Every batch taken is sent unless the receiver is gone,
                    // and the workers take every batch unless told to stop:
                    // the channel closes early only when a worker panicked,
                    // and leaving the scope below re-raises that panic.
                    Err(_) => break 'batches,
                }
            };
            for item in results {
                if let Err(error) = consume(item) {
                    result = Err(error);
                    break 'batches;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        // Dropping the receiver ends the workers' sends; the scope joins them.
        drop(receiver);
        result
    })
}

/// `items` in batches of [`BATCH`], each taken whole by the worker that
/// works on it.
fn into_batches<T>(items: Vec<T>) -> Vec<Mutex<Vec<T>>> {
    let mut batches = Vec::with_capacity(items.len().div_ceil(BATCH));
    let mut items = items.into_iter();
    loop {
        let batch: Vec<T> = items.by_ref().take(BATCH).collect();
        if batch.is_empty() {
            return batches;
        }
        batches.push(Mutex::new(batch));
    }
}

/// The items of batch number `batch` (`None` past the last one), taken out
/// of `batches`.
fn take_batch<T>(batches: &[Mutex<Vec<T>>], batch: usize) -> Option<Vec<T>> {
    let mut items = batches
        .get(batch)?
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    Some(std::mem::take(&mut *items)).filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_consumed_in_order() {
        let items: Vec<usize> = (0..1000).collect();
        let mut seen = Vec::new();
        let result: Result<(), ()> = in_order(
            items,
            || 0_usize,
            |calls, item| {
                *calls += 1;
                item * 2
            },
            |doubled| {
                seen.push(doubled);
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        assert_eq!(seen, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_error_stops_the_consumer() {
        let items: Vec<usize> = (0..1000).collect();
        let mut seen = 0;
        let result = in_order(
            items,
            || (),
            |(), item| item,
            |item| {
                seen += 1;
                if item == 300 { Err(item) } else { Ok(()) }
            },
        );
        assert_eq!(result, Err(300));
        assert_eq!(seen, 301);
    }

    #[test]
    fn no_items_is_no_work() {
        let result: Result<(), ()> = in_order(Vec::<u8>::new(), || (), |(), _| (), |()| Err(()));
        assert_eq!(result, Ok(()));
    }
}
