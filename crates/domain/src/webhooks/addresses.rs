//! Which addresses a webhook delivery may never reach (OWASP API7, server-side request forgery): every range of the
//! IANA IPv4 and IPv6 special-purpose address registries that is not globally reachable, every way of writing an IPv4
//! address as IPv6, and what the registries leave unassigned (240.0.0.0/4, IPv6 outside 2000::/3).
//!
//! The rules are one table per family, read in order (the first range that holds an address names its kind), so a
//! range is added in one line and the unit test walks the same ranges. Where the registry marks a few addresses of a
//! refused block as globally reachable (the anycast services of 192.0.0.0/24 and 2001::/23), the whole block is
//! refused: none of them is a place a webhook receiver lives.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

/// Why an address is not one a delivery may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusedAddress {
    /// This host: 127.0.0.0/8, ::1, `localhost`.
    Loopback,
    /// A private network: RFC 1918 (10/8, 172.16/12, 192.168/16), IPv6 unique local (fc00::/7) and site-local.
    Private,
    /// Link-local: 169.254.0.0/16 (where cloud metadata services answer, 169.254.169.254) and fe80::/10.
    LinkLocal,
    /// The carrier-grade NAT range shared by a provider's customers, 100.64.0.0/10.
    SharedAddressSpace,
    /// No address: 0.0.0.0/8 ("this network") and ::.
    Unspecified,
    /// Multicast: 224.0.0.0/4 and ff00::/8.
    Multicast,
    /// The limited broadcast address 255.255.255.255.
    Broadcast,
    /// Reserved for documentation and examples: the three TEST-NETs, 2001:db8::/32 and 3fff::/20.
    Documentation,
    /// Reserved for benchmarking networks: 198.18.0.0/15 and 2001:2::/48.
    Benchmarking,
    /// An IPv4 address written as IPv6: IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), IPv4-translated
    /// (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32). Where it
    /// leads depends on a translator or relay, not on the address: the receiver's own address is asked for instead.
    EmbeddedIpv4,
    /// Set aside by the IANA registries for a protocol rather than for hosts: IETF protocol assignments
    /// (192.0.0.0/24, 2001::/23), the deprecated 6to4 relay anycast (192.88.99.0/24), discard-only (100::/64) and
    /// segment-routing identifiers (5f00::/16).
    SpecialPurpose,
    /// Not assigned for use: 240.0.0.0/4, and IPv6 outside the global unicast block 2000::/3.
    Reserved,
}

impl RefusedAddress {
    /// The rule in a few English words, for the record of a delivery attempt.
    pub fn rule(self) -> &'static str {
        match self {
            RefusedAddress::Loopback => "loopback",
            RefusedAddress::Private => "private network",
            RefusedAddress::LinkLocal => "link-local",
            RefusedAddress::SharedAddressSpace => "shared address space",
            RefusedAddress::Unspecified => "unspecified",
            RefusedAddress::Multicast => "multicast",
            RefusedAddress::Broadcast => "broadcast",
            RefusedAddress::Documentation => "documentation",
            RefusedAddress::Benchmarking => "benchmarking",
            RefusedAddress::EmbeddedIpv4 => "IPv4 written as IPv6",
            RefusedAddress::SpecialPurpose => "special-purpose",
            RefusedAddress::Reserved => "reserved",
        }
    }
}

const fn v4(a: u8, b: u8, c: u8, d: u8, prefix: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

/// Every IPv4 range refused, the more specific first.
pub const REFUSED_V4: [(Ipv4Net, RefusedAddress); 16] = [
    (v4(0, 0, 0, 0, 8), RefusedAddress::Unspecified),
    (v4(10, 0, 0, 0, 8), RefusedAddress::Private),
    (v4(100, 64, 0, 0, 10), RefusedAddress::SharedAddressSpace),
    (v4(127, 0, 0, 0, 8), RefusedAddress::Loopback),
    (v4(169, 254, 0, 0, 16), RefusedAddress::LinkLocal),
    (v4(172, 16, 0, 0, 12), RefusedAddress::Private),
    (v4(192, 0, 0, 0, 24), RefusedAddress::SpecialPurpose),
    (v4(192, 0, 2, 0, 24), RefusedAddress::Documentation),
    (v4(192, 88, 99, 0, 24), RefusedAddress::SpecialPurpose),
    (v4(192, 168, 0, 0, 16), RefusedAddress::Private),
    (v4(198, 18, 0, 0, 15), RefusedAddress::Benchmarking),
    (v4(198, 51, 100, 0, 24), RefusedAddress::Documentation),
    (v4(203, 0, 113, 0, 24), RefusedAddress::Documentation),
    (v4(224, 0, 0, 0, 4), RefusedAddress::Multicast),
    (v4(255, 255, 255, 255, 32), RefusedAddress::Broadcast),
    (v4(240, 0, 0, 0, 4), RefusedAddress::Reserved),
];

/// Every IPv6 range refused, the more specific first; what is outside 2000::/3 and none of these is
/// [`RefusedAddress::Reserved`].
pub const REFUSED_V6: [(Ipv6Net, RefusedAddress); 19] = [
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), RefusedAddress::Unspecified),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), RefusedAddress::Loopback),
    (v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96), RefusedAddress::EmbeddedIpv4),
    (v6([0, 0, 0, 0, 0xffff, 0, 0, 0], 96), RefusedAddress::EmbeddedIpv4),
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 96), RefusedAddress::EmbeddedIpv4),
    (v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96), RefusedAddress::EmbeddedIpv4),
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), RefusedAddress::EmbeddedIpv4),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), RefusedAddress::SpecialPurpose),
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32), RefusedAddress::EmbeddedIpv4),
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), RefusedAddress::Benchmarking),
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), RefusedAddress::SpecialPurpose),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), RefusedAddress::Documentation),
    (v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), RefusedAddress::EmbeddedIpv4),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), RefusedAddress::Documentation),
    (v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16), RefusedAddress::SpecialPurpose),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), RefusedAddress::Private),
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), RefusedAddress::Private),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), RefusedAddress::LinkLocal),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), RefusedAddress::Multicast),
];

/// The only IPv6 block the registries hand out for global unicast.
const GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Why `address` may not be delivered to, if it may not.
pub fn refused_address(address: IpAddr) -> Option<RefusedAddress> {
    match address {
        IpAddr::V4(v4) => REFUSED_V4
            .iter()
            .find(|(range, _)| range.contains(&v4))
            .map(|(_, kind)| *kind),
        IpAddr::V6(v6) => REFUSED_V6
            .iter()
            .find(|(range, _)| range.contains(&v6))
            .map(|(_, kind)| *kind)
            .or_else(|| (!GLOBAL_UNICAST.contains(&v6)).then_some(RefusedAddress::Reserved)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use RefusedAddress::*;

    fn kind(address: &str) -> Option<RefusedAddress> {
        refused_address(address.parse().unwrap_or_else(|_| panic!("{address} is an address")))
    }

    /// Every range of the registries that is not globally reachable, with an address at its start, inside it and at
    /// its end, and what it is refused as.
    const REGISTRY: &[(&str, &[&str], RefusedAddress)] = &[
        ("0.0.0.0/8", &["0.0.0.0", "0.1.2.3", "0.255.255.255"], Unspecified),
        ("10.0.0.0/8", &["10.0.0.0", "10.1.2.3", "10.255.255.255"], Private),
        (
            "100.64.0.0/10",
            &["100.64.0.0", "100.100.100.200", "100.127.255.255"],
            SharedAddressSpace,
        ),
        ("127.0.0.0/8", &["127.0.0.0", "127.0.0.1", "127.255.255.255"], Loopback),
        (
            "169.254.0.0/16",
            &["169.254.0.0", "169.254.169.254", "169.254.255.255"],
            LinkLocal,
        ),
        (
            "172.16.0.0/12",
            &["172.16.0.0", "172.20.1.1", "172.31.255.255"],
            Private,
        ),
        (
            "192.0.0.0/24",
            &["192.0.0.0", "192.0.0.1", "192.0.0.9", "192.0.0.170", "192.0.0.255"],
            SpecialPurpose,
        ),
        (
            "192.0.2.0/24",
            &["192.0.2.0", "192.0.2.1", "192.0.2.255"],
            Documentation,
        ),
        (
            "192.88.99.0/24",
            &["192.88.99.0", "192.88.99.1", "192.88.99.255"],
            SpecialPurpose,
        ),
        (
            "192.168.0.0/16",
            &["192.168.0.0", "192.168.1.1", "192.168.255.255"],
            Private,
        ),
        (
            "198.18.0.0/15",
            &["198.18.0.0", "198.18.0.1", "198.19.255.255"],
            Benchmarking,
        ),
        (
            "198.51.100.0/24",
            &["198.51.100.0", "198.51.100.7", "198.51.100.255"],
            Documentation,
        ),
        (
            "203.0.113.0/24",
            &["203.0.113.0", "203.0.113.9", "203.0.113.255"],
            Documentation,
        ),
        ("224.0.0.0/4", &["224.0.0.0", "224.0.0.1", "239.255.255.255"], Multicast),
        ("240.0.0.0/4", &["240.0.0.0", "250.1.2.3", "255.255.255.254"], Reserved),
        ("255.255.255.255/32", &["255.255.255.255"], Broadcast),
        ("::/128", &["::"], Unspecified),
        ("::1/128", &["::1"], Loopback),
        (
            "::ffff:0:0/96",
            &[
                "::ffff:0.0.0.0",
                "::ffff:127.0.0.1",
                "::ffff:8.8.8.8",
                "::ffff:255.255.255.255",
            ],
            EmbeddedIpv4,
        ),
        (
            "::/96",
            &[
                "::0.0.0.2",
                "::127.0.0.1",
                "::a9fe:a9fe",
                "::8.8.8.8",
                "::255.255.255.255",
            ],
            EmbeddedIpv4,
        ),
        (
            "::ffff:0:0:0/96",
            &[
                "::ffff:0:0:0",
                "::ffff:0:127.0.0.1",
                "::ffff:0:8.8.8.8",
                "::ffff:0:ffff:ffff",
            ],
            EmbeddedIpv4,
        ),
        (
            "64:ff9b::/96",
            &["64:ff9b::", "64:ff9b::7f00:1", "64:ff9b::808:808", "64:ff9b::ffff:ffff"],
            EmbeddedIpv4,
        ),
        (
            "64:ff9b:1::/48",
            &["64:ff9b:1::", "64:ff9b:1::7f00:1", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
            EmbeddedIpv4,
        ),
        (
            "100::/64",
            &["100::", "100::1", "100::ffff:ffff:ffff:ffff"],
            SpecialPurpose,
        ),
        (
            "2001::/32 (Teredo)",
            &["2001::", "2001::1", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"],
            EmbeddedIpv4,
        ),
        (
            "2001:2::/48",
            &["2001:2::", "2001:2::1", "2001:2:0:ffff:ffff:ffff:ffff:ffff"],
            Benchmarking,
        ),
        // The rest of 2001::/23, its globally reachable anycast services (PCP, TURN, AMT, AS112, ORCHIDv2, DRIP)
        // included.
        (
            "2001::/23",
            &[
                "2001:1::1",
                "2001:1::2",
                "2001:3::1",
                "2001:4:112::1",
                "2001:20::1",
                "2001:30::1",
                "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
            ],
            SpecialPurpose,
        ),
        (
            "2001:db8::/32",
            &["2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
            Documentation,
        ),
        (
            "2002::/16",
            &[
                "2002::",
                "2002:7f00:1::1",
                "2002:808:808::1",
                "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            ],
            EmbeddedIpv4,
        ),
        (
            "3fff::/20",
            &["3fff::", "3fff::1", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
            Documentation,
        ),
        (
            "5f00::/16",
            &["5f00::", "5f00::1", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
            SpecialPurpose,
        ),
        (
            "fc00::/7",
            &["fc00::", "fd12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
            Private,
        ),
        (
            "fec0::/10",
            &["fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
            Private,
        ),
        (
            "fe80::/10",
            &["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
            LinkLocal,
        ),
        (
            "ff00::/8",
            &["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
            Multicast,
        ),
        // Outside 2000::/3 and unassigned.
        (
            "::/8 and the rest outside 2000::/3",
            &["::1:0:0:1", "200::1", "4000::1", "8000::1", "e000::1"],
            Reserved,
        ),
    ];

    #[test]
    fn every_special_purpose_range_that_is_not_globally_reachable_is_refused() {
        for (range, addresses, expected) in REGISTRY {
            for address in *addresses {
                assert_eq!(kind(address), Some(*expected), "{address} in {range}");
            }
        }
    }

    #[test]
    fn the_tables_list_every_range_the_test_walks() {
        let listed: Vec<ipnet::IpNet> = REFUSED_V4
            .iter()
            .map(|(range, _)| ipnet::IpNet::V4(*range))
            .chain(REFUSED_V6.iter().map(|(range, _)| ipnet::IpNet::V6(*range)))
            .collect();
        for (range, _, _) in REGISTRY.iter().filter(|(range, _, _)| !range.starts_with("::/8")) {
            let cidr = range.split(' ').next().unwrap_or_default();
            let net: ipnet::IpNet = cidr.parse().unwrap_or_else(|_| panic!("{cidr} is a range"));
            assert!(listed.contains(&net), "{cidr} is in the table");
        }
    }

    #[test]
    fn globally_reachable_addresses_beside_the_refused_ranges_are_allowed() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.0",
            "192.0.3.0",
            "192.31.196.1",
            "192.52.193.1",
            "192.88.98.255",
            "192.175.48.1",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.99.255",
            "203.0.112.255",
            "223.255.255.255",
            "2000::1",
            "2001:200::1",
            "2001:db7:ffff::1",
            "2001:db9::1",
            "2003::1",
            "2606:4700:4700::1111",
            "2620:4f:8000::1",
            "2a00:1450:4001::200e",
            "3ffe:ffff::1",
            "3fff:1000::1",
        ] {
            assert_eq!(kind(address), None, "{address}");
        }
    }
}
