//! The backbone every other group refers to: each society's planning, made from the catalogues the reference data
//! ships (species, cycles, planting times, products): master campaigns per cycle, a campaign per plot and master
//! campaign, and the cultivation (sown variety) of each campaign.

mod campaigns;

pub(crate) use campaigns::society;
