//! Each country's words for the operations seed: its contractors, operators, streets, names of machines and stores,
//! phone prefix, email domain and aircraft registration prefix.

/// A country's words for the operations seed.
pub(super) struct Local {
    pub contractors: &'static [&'static str],
    pub operators: &'static [&'static str],
    pub streets: &'static [&'static str],
    /// Names of machine kinds: sprayer, planter, harvester, tractor, spreader, aircraft.
    pub kinds: [&'static str; 6],
    pub central: &'static str,
    pub store_prefix: &'static str,
    pub phone: &'static str,
    pub domain: &'static str,
    pub aircraft_prefix: &'static str,
}

const AR: Local = Local {
    contractors: &[
        "Servicios Agrícolas Don Pedro S.R.L.",
        "Aeroaplicaciones del Sur S.A.",
        "Contratistas Rurales Hnos. Ferraro",
        "Pulverizaciones Pampeanas S.R.L.",
        "Cosechas Integrales S.A.",
        "Siembras del Oeste S.R.L.",
    ],
    operators: &[
        "Walter Pereyra",
        "Sergio Bianchi",
        "Raúl Giménez",
        "Darío Sosa",
        "Marcelo Etcheverry",
        "Fabián López",
        "Cristian Ferrari",
        "Ezequiel Martínez",
    ],
    streets: &[
        "Ruta 5 km 612",
        "Av. San Martín 1450",
        "Calle 9 Nro 230",
        "Ruta 35 km 240",
    ],
    kinds: [
        "Pulverizadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avión pulverizador",
    ],
    central: "Depósito central de agroquímicos",
    store_prefix: "Depósito",
    phone: "+54 9 2954",
    domain: "servicios.com.ar",
    aircraft_prefix: "LV",
};

const BR: Local = Local {
    contractors: &[
        "Agro Serviços Rio Verde Ltda.",
        "Aviação Agrícola Cerrado Ltda.",
        "Colheita Certa Serviços Agrícolas Ltda.",
        "Pulverização Goiás Ltda.",
        "Plantio Direto Serviços Ltda.",
    ],
    operators: &[
        "Edson Oliveira",
        "Marcos Pereira",
        "Valdir Schneider",
        "Cláudio Souza",
        "Rogério Almeida",
        "Anderson Costa",
        "Jair Ribeiro",
        "Leandro Carvalho",
    ],
    streets: &[
        "Rodovia GO-174 km 32",
        "Av. Presidente Vargas 980",
        "Rua Goiás 215",
        "BR-060 km 388",
    ],
    kinds: [
        "Pulverizador",
        "Plantadeira",
        "Colheitadeira",
        "Trator",
        "Distribuidor de fertilizantes",
        "Avião agrícola",
    ],
    central: "Armazém central de insumos",
    store_prefix: "Depósito",
    phone: "+55 64 9",
    domain: "servicos.com.br",
    aircraft_prefix: "PR",
};

const MX: Local = Local {
    contractors: &[
        "Servicios Agrícolas del Bajío S.A. de C.V.",
        "Aerofumigaciones Guanajuato S.A. de C.V.",
        "Maquiladora Agrícola Celaya S.P.R.",
        "Trilladoras Unidas S.P.R. de R.L.",
    ],
    operators: &[
        "Jesús Ramírez",
        "Juan Carlos Hernández",
        "Pedro Sánchez",
        "Ramón Flores",
        "Alfredo Cruz",
        "Efraín García",
        "Rubén Pérez",
        "Martín Villaseñor",
    ],
    streets: &[
        "Carretera Celaya-Salvatierra km 8",
        "Av. Juárez 312",
        "Camino a San Miguel s/n",
    ],
    kinds: [
        "Aspersora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avioneta fumigadora",
    ],
    central: "Almacén central de insumos",
    store_prefix: "Bodega",
    phone: "+52 461",
    domain: "servicios.com.mx",
    aircraft_prefix: "XB",
};

const PY: Local = Local {
    contractors: &[
        "Servicios Agrícolas Santa Rita S.A.",
        "Aeroagrícola Paraná S.R.L.",
        "Cosechas del Este S.A.",
        "Pulverizaciones Itapúa S.R.L.",
        "Siembra Directa Naranjal S.A.",
    ],
    operators: &[
        "Derlis Benítez",
        "Rubén Villalba",
        "Arno Schmidt",
        "Osmar Cáceres",
        "Víctor Ayala",
        "Nelson Duarte",
        "Édgar Ortiz",
        "Jakob Friesen",
    ],
    streets: &[
        "Supercarretera Itaipú km 42",
        "Ruta PY06 km 210",
        "Avda. San Blas 1250",
        "Calle Mcal. López 480",
    ],
    kinds: [
        "Pulverizadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avión fumigador",
    ],
    central: "Depósito central de insumos",
    store_prefix: "Depósito",
    phone: "+595 983",
    domain: "servicios.com.py",
    aircraft_prefix: "ZP",
};

const BO: Local = Local {
    contractors: &[
        "Servicios Agrícolas Pailón S.R.L.",
        "Aerofumigaciones del Oriente S.R.L.",
        "Cosechadores Unidos Cuatro Cañadas S.R.L.",
        "Fumigaciones San Julián S.R.L.",
        "Maquinaria Okinawa S.A.",
    ],
    operators: &[
        "Rolando Vaca",
        "Marcelo Justiniano",
        "Wilfredo Mamani",
        "Johnny Rojas",
        "Franz Peters",
        "Kenji Higa",
        "Limbert Quispe",
        "Óscar Añez",
    ],
    streets: &[
        "Carretera a Cuatro Cañadas km 12",
        "Av. Cristo Redentor 4500",
        "Calle Sucre 215",
        "Carretera al Norte km 48",
    ],
    kinds: [
        "Fumigadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avión fumigador",
    ],
    central: "Almacén central de insumos",
    store_prefix: "Almacén",
    phone: "+591 7",
    domain: "servicios.com.bo",
    aircraft_prefix: "CP",
};

const CO: Local = Local {
    contractors: &[
        "Servicios Agrícolas del Llano S.A.S.",
        "Aerofumigaciones del Meta S.A.S.",
        "Cosechas Tolima S.A.S.",
        "Maquinaria Agrícola Casanare S.A.S.",
        "Agroservicios Puerto López S.A.S.",
    ],
    operators: &[
        "Jhon Fredy Rincón",
        "Wilmer Parra",
        "Edwin Castro",
        "Alexánder Romero",
        "Fredy Quintero",
        "Yesid Ospina",
        "Arley Sierra",
        "Nelson Bermúdez",
    ],
    streets: &[
        "Vía Puerto López - Puerto Gaitán km 18",
        "Calle 15 # 38-20",
        "Carrera 7 # 12-45",
        "Vereda La Balsa",
    ],
    kinds: [
        "Fumigadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Abonadora",
        "Avioneta de fumigación",
    ],
    central: "Bodega central de insumos",
    store_prefix: "Bodega",
    phone: "+57 310",
    domain: "servicios.com.co",
    aircraft_prefix: "HK",
};

const UY: Local = Local {
    contractors: &[
        "Servicios Agrícolas Young S.R.L.",
        "Aeroaplicaciones del Litoral S.A.",
        "Cosechas del Este Ltda.",
        "Pulverizaciones Mercedes S.R.L.",
        "Siembras Soriano S.A.",
    ],
    operators: &[
        "Walter Techera",
        "Daniel Silveira",
        "Rubén Olivera",
        "Sergio Barreto",
        "Néstor Pereira",
        "Gustavo Ferreira",
        "Marcelo Arocena",
        "Diego Irigoyen",
    ],
    streets: &[
        "Ruta 3 km 308",
        "Av. 18 de Julio 1240",
        "Ruta 24 km 52",
        "Calle Rincón 512",
    ],
    kinds: [
        "Pulverizadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avión aplicador",
    ],
    central: "Galpón central de insumos",
    store_prefix: "Galpón",
    phone: "+598 9",
    domain: "servicios.com.uy",
    aircraft_prefix: "CX",
};

const VE: Local = Local {
    contractors: &[
        "Servicios Agrícolas Acarigua C.A.",
        "Aerofumigaciones Los Llanos C.A.",
        "Cosechadora Turén C.A.",
        "Maquinarias Agrícolas Guanare C.A.",
        "Agroservicios Araure C.A.",
    ],
    operators: &[
        "José Gregorio Linares",
        "Franklin Escalona",
        "Omar Briceño",
        "Jesús Colmenares",
        "Richard Montilla",
        "Yonathan Rivas",
        "Carlos Torrealba",
        "Wilmer Mendoza",
    ],
    streets: &[
        "Carretera Acarigua-Guanare km 7",
        "Av. Circunvalación Sur",
        "Calle 30 entre carreras 5 y 6",
        "Carretera Turén-Píritu km 12",
    ],
    kinds: [
        "Asperjadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Abonadora",
        "Avioneta fumigadora",
    ],
    central: "Almacén central de insumos",
    store_prefix: "Galpón",
    phone: "+58 414",
    domain: "servicios.com.ve",
    aircraft_prefix: "YV",
};

/// The words of `country` (Argentina's for a country the demo does not know).
pub(super) fn local(country: &str) -> &'static Local {
    match country {
        "BR" => &BR,
        "MX" => &MX,
        "PY" => &PY,
        "BO" => &BO,
        "CO" => &CO,
        "UY" => &UY,
        "VE" => &VE,
        _ => &AR,
    }
}
