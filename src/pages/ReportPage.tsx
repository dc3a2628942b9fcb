import { useParams, useSearch } from 'wouter';
import { currencyOfSearch } from '../reports/page/currencyQuery';
import { ReportPageLoader } from '../reports/page/ReportPageLoader';

/** /reports/:secret (with `?currency=`, converted for the visit: a group link keeps it). */
export function ReportPage() {
  const params = useParams<{ secret: string }>();
  const currency = currencyOfSearch(useSearch());
  return <ReportPageLoader secret={params.secret} currency={currency} />;
}

/** /reports/shared/:secret?currency=: a share link, read only, in the currency the link asks for. */
export function SharedReportPage() {
  const params = useParams<{ secret: string }>();
  const currency = currencyOfSearch(useSearch());
  return <ReportPageLoader secret={params.secret} variant="shared" currency={currency} />;
}

/** /demo/:secret: the public demo, read only; the visitor's title and summary edits stay in the browser. */
export function DemoReportPage() {
  const params = useParams<{ secret: string }>();
  return <ReportPageLoader secret={params.secret} variant="demo" />;
}
