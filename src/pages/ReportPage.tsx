import { IconShare } from '@tabler/icons-react';
import { useParams } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';
import { ReportPageLoader } from '../reports/page/ReportPageLoader';

/** Who is looking: the account's users, a visitor with a share link, or a demo visitor. */
export type ReportVariant = 'normal' | 'shared' | 'demo';

const placeholder = {
  shared: {
    title: 'Shared report',
    icon: IconShare,
    description: 'A read-only view of a report shared by link, in the currency of your choice.',
  },
} as const;

function ReportView({ variant }: { variant: 'shared' }) {
  const { title, icon, description } = placeholder[variant];
  return <ComingSoon title={title} icon={icon} description={description} />;
}

/** /reports/:secret */
export function ReportPage() {
  const params = useParams<{ secret: string }>();
  return <ReportPageLoader secret={params.secret} />;
}

/** /reports/shared/:secret */
export function SharedReportPage() {
  return <ReportView variant="shared" />;
}

/** /demo/:secret: the public demo, read only; the visitor's title and summary edits stay in the browser. */
export function DemoReportPage() {
  const params = useParams<{ secret: string }>();
  return <ReportPageLoader secret={params.secret} variant="demo" />;
}
