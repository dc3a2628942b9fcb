import { SimpleGrid, Stack } from '@mantine/core';
import { hasFullAccess } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { useSession } from '../session/SessionContext';
import { AccountCard } from '../settings/account/AccountCard';
import { CustomAttributesSection } from '../settings/attributes/CustomAttributesSection';
import { ApiTokenCard } from '../settings/dataSources/ApiTokenCard';
import { CsvImportCard } from '../settings/dataSources/CsvImportCard';
import { IntegrationCards } from '../settings/dataSources/IntegrationCards';
import { PlanSection } from '../settings/plan/PlanSection';
import { SegmentationSection } from '../settings/segmentation/SegmentationSection';
import { SettingsSection } from '../settings/SettingsSection';
import { UsersCard } from '../settings/UsersCard';

/** Settings: the account, its plan, data sources, custom attributes, segmentation and users (full users only). */
export function SettingsPage() {
  const { user } = useSession();
  return (
    <>
      <PageHeader title="Settings" description="Your account, your plan, where your data comes from, and how your reports slice it." />
      {hasFullAccess(user) ? (
        <Stack gap={40}>
          <SettingsSection title="Account" description="The currency of your reports, who may open them, and how the numbers are calculated.">
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <AccountCard />
            </SimpleGrid>
          </SettingsSection>
          <SettingsSection title="Plan" description="Your plan, what you use of its limits, and the other plans.">
            <PlanSection />
          </SettingsSection>
          <SettingsSection title="Data sources" description="Bring your payments and customers in from a spreadsheet, your billing and invoicing tools, or your own systems.">
            <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="lg">
              <CsvImportCard />
              <IntegrationCards />
              <ApiTokenCard />
            </SimpleGrid>
          </SettingsSection>
          <SettingsSection title="Custom attributes" description="Your own fields on customers, payments and costs, such as plan, industry or sales channel.">
            <CustomAttributesSection />
          </SettingsSection>
          <SettingsSection title="Segmentation" description="Group attribute values into segments that split your report charts.">
            <SegmentationSection />
          </SettingsSection>
          <SettingsSection title="Users" description="The people who share your account.">
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
              <UsersCard />
            </SimpleGrid>
          </SettingsSection>
        </Stack>
      ) : null}
    </>
  );
}
