// One shared formatter: toLocaleString builds a new Intl formatter on every call (about 0.5 ms).
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const DEC = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

export const formatInt = (n: number) => INT.format(n);
export const formatNumber = (n: number) => DEC.format(n);
