//! How a claim of background work (webhook deliveries) is shared out between the societies that have some due: the
//! store finds the societies and claims each one's share with a statement of its own, and this says how large each
//! share is, so that one society with a long backlog does not starve the others.

/// Splits `limit` claims between societies that have `due[i]` items due each, listed oldest due first: each gets an
/// equal share, a society that has less due than its share leaves the rest to the others, and what does not divide
/// evenly goes to the oldest due. The shares never add up to more than `limit`, nor give a society more than it has.
pub fn fair_shares(due: &[u64], limit: u64) -> Vec<u64> {
    let mut shares = vec![0; due.len()];
    let mut left = limit;
    let mut open: Vec<usize> = (0..due.len()).filter(|&at| due[at] > 0).collect();
    while left > 0 && !open.is_empty() {
        let each = left / u64::try_from(open.len()).unwrap_or(u64::MAX);
        if each == 0 {
            // Fewer claims left than societies: one each to the oldest due.
            for &at in &open {
                if left == 0 {
                    break;
                }
                shares[at] += 1;
                left -= 1;
            }
            break;
        }
        let mut still = Vec::with_capacity(open.len());
        for &at in &open {
            let give = each.min(due[at] - shares[at]);
            shares[at] += give;
            left -= give;
            if shares[at] < due[at] {
                still.push(at);
            }
        }
        open = still;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_society_leaves_room_for_the_others() {
        assert_eq!(fair_shares(&[10_000, 3], 128), vec![125, 3]);
        assert_eq!(fair_shares(&[10_000, 10_000], 128), vec![64, 64]);
    }

    #[test]
    fn what_does_not_divide_goes_to_the_oldest_due() {
        assert_eq!(fair_shares(&[50, 50, 50], 128), vec![43, 43, 42]);
        assert_eq!(fair_shares(&[5, 5, 5, 5], 2), vec![1, 1, 0, 0]);
    }

    #[test]
    fn shares_never_pass_the_limit_nor_what_is_due() {
        assert_eq!(fair_shares(&[1, 2, 0], 128), vec![1, 2, 0]);
        assert_eq!(fair_shares(&[], 128), Vec::<u64>::new());
        assert_eq!(fair_shares(&[7], 0), vec![0]);
        for limit in 0..40 {
            let due = [1, 9, 3, 20, 0, 4];
            let shares = fair_shares(&due, limit);
            assert_eq!(shares.iter().sum::<u64>(), limit.min(due.iter().sum()));
            assert!(shares.iter().zip(due).all(|(share, due)| *share <= due));
        }
    }
}
