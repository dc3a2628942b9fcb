import { Menu } from '@mantine/core';
import { IconBox, IconFileSpreadsheet, IconFileTypeCsv, IconPackages, IconUsers } from '@tabler/icons-react';
import { useSelector } from '@xstate/react';
import { useEffect, useMemo, useState } from 'react';
import { DETAILS_UNIT_COUNTING_DEFINITIONS } from '../../../models/constants';
import { selectUser } from '../../../machines/auth/selectors';
import { canStartExport } from '../../../machines/sectionExport/selectors';
import type { SectionExportRequest } from '../../../machines/sectionExport/types';
import { useApi } from '../../api/ApiContext';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import type { LiveChannels } from '../../cable/liveChannels';
import { toastError } from '../../notifications/toast';
import { useAuthSelector } from '../../session/SessionContext';
import type { ReportSection } from '../page/reportApi';
import { createSectionExportServices, saveFile, type DataExportFormat } from './sectionExportApi';
import { sectionExportActorFor, startSectionExportActor } from './sectionExportStore';

export const DATA_EXPORT_FAILURE = 'We could not export this section, please try again later';

type ExportableSection = Pick<ReportSection, 'id' | 'definition_id' | 'title' | 'periods' | 'recalculation_status' | 'underlying_data'>;

type DetailsVariant = NonNullable<SectionExportRequest['query']['variant']>;

/**
 * 'Export details' of a section: its customers over the section's whole range (a cohort table:
 * its first cohort), each row's money, subscriptions (`sub`) or units (`units_sold`).
 */
export function detailsRequest(section: Pick<ReportSection, 'id' | 'definition_id' | 'periods'>, variant: DetailsVariant = 'money'): SectionExportRequest | null {
  const first = section.periods[0];
  const last = section.periods.at(-1);
  if (!first || !last) return null;
  const cohort = section.definition_id === 'customer_cohorts' || section.definition_id === 'mrr_cohorts';
  return {
    sectionId: section.id,
    query: { start_date: first.first_day, end_date: last.last_day, variant, ...(cohort ? { cohort_date: first.first_day } : {}) },
  };
}

interface SectionExportMenuItemsProps {
  section: ExportableSection;
  /** The segment the chart shows (default: the total). */
  segmentId?: string;
  /** Other live channels than the app's (tests). */
  channels?: LiveChannels;
}

/**
 * The 'Export' group of a section's menu: 'Export data (CSV)' and 'Export data (XLSX)'
 * download the section's series at once (GET export_data with the user's token); 'Export
 * details' starts the details export (machines/sectionExport), whose notification comes with
 * a Download action when it is ready. Only for full users (the spec: signed-in users of the
 * report's account on the normal report; shared and demo viewers get no exports); the section
 * menu itself is shown to the report's editors only.
 */
export function SectionExportMenuItems({ section, segmentId, channels }: SectionExportMenuItemsProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const user = useAuthSelector(selectUser);
  const actor = useMemo(() => sectionExportActorFor(client, live, user?.id ?? ''), [client, live, user?.id]);
  useEffect(() => startSectionExportActor(actor), [actor]);
  const canStart = useSelector(actor, canStartExport);
  const api = useMemo(() => createSectionExportServices(client, live), [client, live]);
  const [downloading, setDownloading] = useState<DataExportFormat | null>(null);

  if (!user || user.permission_level !== 'user') return null;
  const computed = section.periods.length > 0;
  const startDetails = (variant: DetailsVariant) => {
    const request = detailsRequest(section, variant);
    if (request) actor.send({ type: 'sectionExport.start', request: segmentId ? { ...request, query: { ...request.query, segment_id: segmentId } } : request });
  };
  const detailsDisabled = !computed || !canStart;
  const countsUnits = DETAILS_UNIT_COUNTING_DEFINITIONS.includes(section.definition_id);

  const download = async (format: DataExportFormat) => {
    setDownloading(format);
    try {
      const { blob, fileName } = await api.downloadData(section.id, { format, ...(segmentId ? { segment_id: segmentId } : {}) });
      saveFile(blob, fileName);
    } catch {
      toastError(DATA_EXPORT_FAILURE);
    } finally {
      setDownloading(null);
    }
  };

  return (
    <>
      <Menu.Divider />
      <Menu.Label>Export</Menu.Label>
      <Menu.Item leftSection={<IconFileTypeCsv size={16} />} disabled={!computed || downloading !== null} onClick={() => void download('csv')}>
        Export data (CSV)
      </Menu.Item>
      <Menu.Item leftSection={<IconFileSpreadsheet size={16} />} disabled={!computed || downloading !== null} onClick={() => void download('xlsx')}>
        Export data (XLSX)
      </Menu.Item>
      <Menu.Item leftSection={<IconUsers size={16} />} disabled={detailsDisabled} onClick={() => startDetails('money')}>
        Export details
      </Menu.Item>
      {section.underlying_data === 'subscriptions' && (
        <Menu.Item leftSection={<IconPackages size={16} />} disabled={detailsDisabled} onClick={() => startDetails('sub')}>
          Export subscriptions per customer
        </Menu.Item>
      )}
      {countsUnits && (
        <Menu.Item leftSection={<IconBox size={16} />} disabled={detailsDisabled} onClick={() => startDetails('units_sold')}>
          Export units per customer
        </Menu.Item>
      )}
    </>
  );
}
