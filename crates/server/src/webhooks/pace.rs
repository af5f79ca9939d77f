//! How often a worker sends to one endpoint: at most `per_second` attempts a second, retries included, so a batch of
//! a thousand events, or a thousand retries falling due together, reaches a receiver as a steady stream rather than
//! as a flood (issue 50: with many endpoints on one third party's URL, the server was an amplifier).
//!
//! Each delivery a worker claims takes its endpoint's next slot ([`domain::webhooks::next_slot`]). One whose slot is
//! now is sent; the others are handed back to the store due at their slots, which stay reserved for them, so each
//! waits once and then goes out in turn, and deliveries to other endpoints, due meanwhile, are claimed past them.
//! The slots are this process's: several processes on one database each keep their own, so an endpoint gets at
//! most the processes' number times the rate.

use std::collections::HashMap;
use std::time::Duration;

use domain::webhooks::{attempt_interval, next_slot};
use store::webhooks::deliveries::ClaimedDelivery;

/// A slot reserved this long ago and never claimed (its delivery went to another process, or was abandoned) is
/// forgotten.
const FORGET_AFTER: i64 = 10 * 60 * 1000;

/// The slots of every endpoint this worker sends to.
#[derive(Debug)]
pub struct Pacer {
    interval: Duration,
    /// Each endpoint's last slot taken (epoch ms), by society and endpoint.
    last: HashMap<(i64, i64), i64>,
    /// The slot reserved for each delivery handed back, by society and delivery.
    reserved: HashMap<(i64, i64), i64>,
}

/// Claimed deliveries, split by when they may be sent.
#[derive(Debug, Default)]
pub struct Paced {
    /// To send now.
    pub now: Vec<ClaimedDelivery>,
    /// To hand back, each due at its slot (epoch ms).
    pub later: Vec<(ClaimedDelivery, i64)>,
}

impl Pacer {
    /// Slots for `per_second` attempts a second to each endpoint.
    pub fn new(per_second: u32) -> Self {
        Self {
            interval: attempt_interval(per_second),
            last: HashMap::new(),
            reserved: HashMap::new(),
        }
    }

    /// Gives each of `claimed`, in order, a slot at `now` (epoch ms) or later.
    pub fn split(&mut self, claimed: Vec<ClaimedDelivery>, now: i64) -> Paced {
        self.forget(now);
        let mut paced = Paced::default();
        for delivery in claimed {
            let key = (delivery.society_id, delivery.id);
            let slot = match self.reserved.remove(&key) {
                Some(slot) => slot,
                None => {
                    let endpoint = (delivery.society_id, delivery.endpoint_id);
                    let slot = next_slot(self.last.get(&endpoint).copied(), now, self.interval);
                    self.last.insert(endpoint, slot);
                    slot
                }
            };
            if slot <= now {
                paced.now.push(delivery);
            } else {
                self.reserved.insert(key, slot);
                paced.later.push((delivery, slot));
            }
        }
        paced
    }

    /// Drops what no longer shapes a slot: endpoints whose next slot is already past, reservations long unclaimed.
    fn forget(&mut self, now: i64) {
        let interval = i64::try_from(self.interval.as_millis()).unwrap_or(i64::MAX);
        self.last.retain(|_, last| last.saturating_add(interval) > now);
        self.reserved.retain(|_, slot| slot.saturating_add(FORGET_AFTER) > now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(endpoint_id: i64, id: i64) -> ClaimedDelivery {
        ClaimedDelivery {
            society_id: 1,
            id,
            endpoint_id,
            event_id: id,
            url: "https://erp.example.com/hooks".into(),
            body: "{}".into(),
            secrets: Vec::new(),
            attempts: 0,
        }
    }

    #[test]
    fn one_endpoint_gets_one_attempt_an_interval_and_others_are_not_held_behind_it() {
        let mut pacer = Pacer::new(10);
        let mut claimed: Vec<ClaimedDelivery> = (1..=25).map(|id| delivery(7, id)).collect();
        claimed.push(delivery(8, 100));
        let paced = pacer.split(claimed, 1_000);
        let sent: Vec<i64> = paced.now.iter().map(|d| d.id).collect();
        assert_eq!(sent, [1, 100], "the first of each endpoint now");
        let due: Vec<i64> = paced.later.iter().map(|(_, due)| *due).collect();
        assert_eq!(due.len(), 24);
        assert_eq!(due[0], 1_100);
        assert!(due.windows(2).all(|pair| pair[1] - pair[0] == 100), "{due:?}");

        // Handed back and claimed again when due, each goes out in its reserved slot, ahead of newer deliveries.
        let again = pacer.split(vec![delivery(7, 2), delivery(7, 3), delivery(7, 200)], 1_100);
        let sent: Vec<i64> = again.now.iter().map(|d| d.id).collect();
        assert_eq!(sent, [2]);
        assert_eq!(
            again.later.iter().map(|(d, due)| (d.id, *due)).collect::<Vec<_>>(),
            [(3, 1_200), (200, 3_500)]
        );
    }

    #[test]
    fn an_idle_endpoint_is_forgotten_and_starts_again_at_once() {
        let mut pacer = Pacer::new(10);
        pacer.split(vec![delivery(7, 1), delivery(7, 2)], 0);
        assert_eq!(pacer.split(vec![delivery(7, 3)], 10 * 60 * 1000 + 1_000).now.len(), 1);
        assert!(pacer.reserved.is_empty() && pacer.last.len() == 1, "{pacer:?}");
    }
}
