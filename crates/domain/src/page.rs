//! Pagination: which page a request asks for, how big a page is, and the envelope's numbers for a result.

use thiserror::Error;

/// Items on a page when the request does not say.
pub const DEFAULT_PAGE_SIZE: u64 = 100;
/// The most items a request may ask for on one page.
pub const MAX_PAGE_SIZE: u64 = 500;
/// The highest page number a request may name: the largest signed 64-bit integer, the widest integer type most
/// clients have, so a page number the document allows can always be sent.
pub const MAX_PAGE: u64 = i64::MAX as u64;

/// What `next_page` says on the last page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NextPagePolicy {
    /// `null`, as the specification's schema states.
    #[default]
    Null,
    /// The current page number, as the specification's sample responses show.
    Repeat,
}

/// A page request whose numbers have been checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based page number.
    pub page: u64,
    /// Items per page, within 1..=[`MAX_PAGE_SIZE`].
    pub size: u64,
}

/// Why a page request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PageError {
    /// `page` is not an integer within 1..=[`MAX_PAGE`].
    #[error("page must be an integer between 1 and {MAX_PAGE}, got {0:?}")]
    InvalidPage(String),
    /// `size` is not an integer within bounds.
    #[error("size must be an integer between 1 and {MAX_PAGE_SIZE}, got {0:?}")]
    InvalidSize(String),
    /// The page is past the last page.
    #[error("page {requested} does not exist; the last page is {last}")]
    PastLastPage {
        /// The page asked for.
        requested: u64,
        /// The last page there is.
        last: u64,
    },
}

impl PageRequest {
    /// Parses the raw `page` and `size` query values; absent values take their defaults.
    pub fn parse(page: Option<&str>, size: Option<&str>) -> Result<Self, PageError> {
        let page = match page {
            None => 1,
            Some(raw) => raw
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|p| (1..=MAX_PAGE).contains(p))
                .ok_or_else(|| PageError::InvalidPage(raw.to_owned()))?,
        };
        let size = match size {
            None => DEFAULT_PAGE_SIZE,
            Some(raw) => raw
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|s| (1..=MAX_PAGE_SIZE).contains(s))
                .ok_or_else(|| PageError::InvalidSize(raw.to_owned()))?,
        };
        Ok(Self { page, size })
    }

    /// Rows to skip before this page.
    pub fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.size)
    }
}

/// The envelope's numbers for one page of a result of `total_items` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageWindow {
    /// The page served.
    pub current_page: u64,
    /// The next page, or what the policy says on the last one.
    pub next_page: Option<u64>,
    /// Pages in all; never less than 1, so an empty list has one empty page.
    pub total_pages: u64,
    /// Rows in all.
    pub total_items: u64,
}

impl PageWindow {
    /// Places `request` within a result of `total_items` rows, refusing a page past the last.
    pub fn new(request: PageRequest, total_items: u64, policy: NextPagePolicy) -> Result<Self, PageError> {
        let total_pages = total_items.div_ceil(request.size).max(1);
        if request.page > total_pages {
            return Err(PageError::PastLastPage {
                requested: request.page,
                last: total_pages,
            });
        }
        let next_page = if request.page < total_pages {
            Some(request.page + 1)
        } else {
            match policy {
                NextPagePolicy::Null => None,
                NextPagePolicy::Repeat => Some(request.page),
            }
        };
        Ok(Self {
            current_page: request.page,
            next_page,
            total_pages,
            total_items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(page: u64, size: u64) -> PageRequest {
        PageRequest { page, size }
    }

    #[test]
    fn an_empty_list_is_one_empty_page() {
        let window = PageWindow::new(request(1, 100), 0, NextPagePolicy::Null);
        assert_eq!(
            window,
            Ok(PageWindow {
                current_page: 1,
                next_page: None,
                total_pages: 1,
                total_items: 0
            })
        );
    }

    #[test]
    fn the_second_page_of_an_empty_list_does_not_exist() {
        let window = PageWindow::new(request(2, 100), 0, NextPagePolicy::Null);
        assert_eq!(window, Err(PageError::PastLastPage { requested: 2, last: 1 }));
    }

    #[test]
    fn pages_round_up_and_point_at_the_next() {
        let window = PageWindow::new(request(2, 100), 250, NextPagePolicy::Null);
        assert_eq!(
            window,
            Ok(PageWindow {
                current_page: 2,
                next_page: Some(3),
                total_pages: 3,
                total_items: 250
            })
        );
    }

    #[test]
    fn the_last_page_follows_the_policy() {
        assert_eq!(
            PageWindow::new(request(3, 100), 300, NextPagePolicy::Null).map(|w| w.next_page),
            Ok(None)
        );
        assert_eq!(
            PageWindow::new(request(3, 100), 300, NextPagePolicy::Repeat).map(|w| w.next_page),
            Ok(Some(3))
        );
    }

    #[test]
    fn page_and_size_are_checked() {
        assert_eq!(PageRequest::parse(None, None), Ok(request(1, DEFAULT_PAGE_SIZE)));
        assert_eq!(PageRequest::parse(Some("4"), Some("20")), Ok(request(4, 20)));
        assert!(matches!(
            PageRequest::parse(Some("0"), None),
            Err(PageError::InvalidPage(_))
        ));
        assert!(matches!(
            PageRequest::parse(Some("-1"), None),
            Err(PageError::InvalidPage(_))
        ));
        assert!(matches!(
            PageRequest::parse(Some("x"), None),
            Err(PageError::InvalidPage(_))
        ));
        assert_eq!(
            PageRequest::parse(Some("9223372036854775807"), None),
            Ok(request(MAX_PAGE, DEFAULT_PAGE_SIZE))
        );
        assert!(matches!(
            PageRequest::parse(Some("9223372036854775808"), None),
            Err(PageError::InvalidPage(_))
        ));
        assert!(matches!(
            PageRequest::parse(None, Some("0")),
            Err(PageError::InvalidSize(_))
        ));
        assert!(matches!(
            PageRequest::parse(None, Some("501")),
            Err(PageError::InvalidSize(_))
        ));
    }

    #[test]
    fn offsets_count_whole_pages() {
        assert_eq!(request(1, 100).offset(), 0);
        assert_eq!(request(3, 50).offset(), 100);
    }
}
