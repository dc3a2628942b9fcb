import type { Struct } from 'superstruct';
import { ChargebeeConfiguration, FakturowniaConfiguration, WfirmaConfiguration } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';

/** One field of a configuration dialog: the body's key, its label, and how it is typed. */
export interface ConfigurationField {
  key: string;
  label: string;
  description?: string;
  secret?: boolean;
  /** Kept in the integration's non-secret `config`, so a saved value is shown again. */
  fromConfig?: boolean;
}

export interface ConfigurationForm {
  fields: ConfigurationField[];
  struct: Struct<Record<string, string>, unknown>;
}

/** The configuration dialogs built so far (the spec's fields, its messages in models/integrations.ts). */
export const CONFIGURATION_FORMS: Partial<Record<IntegrationName, ConfigurationForm>> = {
  chargebee: {
    fields: [
      { key: 'chargebee_site', label: 'Site', description: 'The name in your-site.chargebee.com', fromConfig: true },
      { key: 'chargebee_api_key', label: 'API key', description: 'Settings → Configure Chargebee → API keys: a read-only key is enough', secret: true },
    ],
    struct: ChargebeeConfiguration as unknown as Struct<Record<string, string>, unknown>,
  },
  fakturownia: {
    fields: [
      { key: 'fakturownia_subdomain', label: 'Subdomain', description: 'The name in your-subdomain.fakturownia.pl', fromConfig: true },
      { key: 'fakturownia_api_token', label: 'API token', description: 'Settings → Account settings → Integration → API authorization code', secret: true },
    ],
    struct: FakturowniaConfiguration as unknown as Struct<Record<string, string>, unknown>,
  },
  wfirma: {
    fields: [
      { key: 'wfirma_email', label: 'E-mail', fromConfig: true },
      { key: 'wfirma_password', label: 'Password', secret: true },
    ],
    struct: WfirmaConfiguration as unknown as Struct<Record<string, string>, unknown>,
  },
};

/** The dialog's starting values: the saved non-secret settings, secrets empty. */
export function initialValues(form: ConfigurationForm, config: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(form.fields.map((field) => [field.key, field.fromConfig && typeof config[field.key] === 'string' ? (config[field.key] as string) : '']));
}
