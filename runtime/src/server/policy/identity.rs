//! Who a caller is, below the layers that use it: what a principal owns
//! things as, and the address a client without one is counted by.

use std::net::IpAddr;

/// The owner of everything done with the static bearer token: whoever holds
/// it is one principal (and, for fairness between clients, nobody in
/// particular).
pub(in crate::server) const SHARED_TOKEN_OWNER: &str = "token";

/// What a principal owns things as (see [`super::access::Caller::owner`]).
pub(in crate::server) fn owner_of(principal: &crate::server::auth::Principal) -> String {
    if let Some(subject) = principal.subject() {
        return format!("sub:{subject}");
    }
    let claims = principal.claims();
    let client = ["client_id", "azp"]
        .iter()
        .find_map(|name| claims.get(*name).and_then(|v| v.as_str()));
    if let Some(client) = client {
        return format!("client:{client}");
    }
    if claims.is_empty() {
        // The static bearer token: whoever holds it is one principal.
        return SHARED_TOKEN_OWNER.to_owned();
    }
    use sha2::Digest;
    // The same token gives the same claims, in the same order, on every
    // instance: the same digest.
    let digest = sha2::Sha256::digest(serde_json::Value::Object(claims.clone()).to_string());
    format!("claims:{}", toolmetadata_core::seam::hex(&digest))
}

/// The address a client is counted by: an IPv4 address as it is (a mapped
/// one as IPv4), an IPv6 one by its /64, the block one host is given, so
/// that a host cannot become millions of clients.
pub(in crate::server) fn address_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(
                u128::from(v6) & !((1u128 << 64) - 1),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_host_is_one_client_by_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_of(a), address_of(b));
        assert_ne!(address_of(a), address_of(other));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(address_of(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
