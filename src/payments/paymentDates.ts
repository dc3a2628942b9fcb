import { isPaymentDay } from '../../models/payments';

const DMY = /^(\d{1,2})[-./](\d{1,2})[-./](\d{4})$/;
const YMD = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

const pad = (value: string) => value.padStart(2, '0');

/** A typed date, DD-MM-YYYY (also YYYY-MM-DD), as YYYY-MM-DD; null when it is no real day. */
export function parseDayInput(text: string): string | null {
  const trimmed = text.trim();
  const dmy = DMY.exec(trimmed);
  const ymd = YMD.exec(trimmed);
  const day = dmy ? `${dmy[3]}-${pad(dmy[2] ?? '')}-${pad(dmy[1] ?? '')}` : ymd ? `${ymd[1]}-${pad(ymd[2] ?? '')}-${pad(ymd[3] ?? '')}` : null;
  return day !== null && isPaymentDay(day) ? day : null;
}

/** 'YYYY-MM-DD' as the form shows it, 'DD-MM-YYYY'. */
export function showDay(day: string): string {
  const [year, month, date] = day.split('-');
  return `${date}-${month}-${year}`;
}
