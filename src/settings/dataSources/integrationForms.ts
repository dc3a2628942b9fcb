import type { Struct } from 'superstruct';
import { ChargebeeConfiguration, FakturowniaConfiguration, HubspotConfiguration, IntercomConfiguration, WfirmaConfiguration } from '../../../models/integrations';
import type { IntegrationName } from '../../../models/integrations';

/** One field of a configuration dialog: the body's key, its label, and how it is typed. */
export interface ConfigurationField {
  key: string;
  label: string;
  description?: string;
  secret?: boolean;
  /** Kept in the integration's non-secret `config`, so a saved value is shown again. */
  fromConfig?: boolean;
  /** A select of these choices (the first one chosen to start with) instead of a text input. A dotted `key` is a nested body key. */
  options?: { value: string; label: string }[];
}

export interface ConfigurationForm {
  fields: ConfigurationField[];
  struct: Struct<Record<string, string>, unknown>;
  /** Save stays disabled while a field is empty or invalid (the spec's Intercom and HubSpot dialogs). */
  saveDisabledWhileInvalid?: boolean;
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
  hubspot: {
    fields: [
      {
        key: 'public_id_attribute_name',
        label: 'Attribute name',
        description: 'The internal name of the HubSpot company property that holds the customer ID used here (e.g. customer_id)',
        fromConfig: true,
      },
    ],
    struct: HubspotConfiguration as unknown as Struct<Record<string, string>, unknown>,
    saveDisabledWhileInvalid: true,
  },
  intercom: {
    fields: [
      {
        key: 'customer_public_id_path.object_type',
        label: 'Object type',
        description: 'Where the customer ID used here is kept in Intercom: on the contact (Customer) or on its company (Company)',
        fromConfig: true,
        options: [
          { value: 'customer', label: 'Customer' },
          { value: 'company', label: 'Company' },
        ],
      },
      {
        key: 'customer_public_id_path.attribute_name',
        label: 'Attribute name',
        description: 'The attribute holding it: external_id or email (contact), company_id or name (company), or custom_attributes.your_attribute',
        fromConfig: true,
      },
    ],
    struct: IntercomConfiguration as unknown as Struct<Record<string, string>, unknown>,
    saveDisabledWhileInvalid: true,
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
