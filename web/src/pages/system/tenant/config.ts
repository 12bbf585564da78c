/** /system/tenant: tenants (contract "Tenants"; platform only). */
import i18n from '../../../locales/i18n'
import { packageOptions, tenantApi, type Tenant } from '../../../api/system/tenant'
import type { CrudConfig } from '../../../components/crud/types'
import { phonePattern } from '../../../utils/validate'

export type TenantDialog =
  | { kind: 'setting'; tenants: Tenant[] }
  | { kind: 'package'; tenant: Tenant }
  | { kind: 'datasource'; tenant: Tenant }

export function tenantConfig(
  open: (dialog: TenantDialog, reload: () => void) => void,
): CrudConfig<Tenant> {
  return {
    menuCode: 'tenant',
    api: tenantApi,
    fields: [
      { name: 'id', label: 'tenant.tenantId', hideInTable: true, hideInForm: true },
      // Blank on add: the server generates the 6 digits.
      { name: 'tenantId', label: 'tenant.tenantId', search: true, lockedIn: ['edit'], width: 110 },
      {
        name: 'tenantName',
        label: 'tenant.tenantName',
        required: 'tenant.tenantNameRequired',
        search: true,
      },
      { name: 'linkman', label: 'tenant.linkman', search: true },
      {
        name: 'contactNumber',
        label: 'tenant.contactNumber',
        rules: (t) => [{ pattern: phonePattern, message: t('validate.phoneFormat') }],
      },
      { name: 'domain', label: 'tenant.domain' },
      { name: 'backgroundUrl', label: 'tenant.backgroundUrl', hideInTable: true },
      { name: 'address', label: 'tenant.address', type: 'textarea', hideInTable: true },
      // Chosen when adding, so the new tenant's admin is granted just the package's menus.
      {
        name: 'packageId',
        label: 'tenant.packageId',
        type: 'select',
        hideInTable: true,
        loadOptions: async () =>
          (await packageOptions()).map((item) => ({
            value: item.id ?? '',
            label: item.packageName,
          })),
      },
      {
        name: 'accountNumber',
        label: 'tenant.accountNumber',
        hideInForm: true,
        render: (value) =>
          value === -1 || value === '-1' ? i18n.t('tenant.unlimited') : (value as string),
      },
      { name: 'expireTime', label: 'tenant.expireTime', hideInForm: true },
      // Off unless turned on: anyone could otherwise ask for accounts of the tenant.
      {
        name: 'selfRegister',
        label: 'tenant.selfRegister',
        type: 'select',
        hideInTable: true,
        options: [
          { value: 0, label: 'tenant.selfRegisterOff' },
          { value: 1, label: 'tenant.selfRegisterOn' },
        ],
      },
      { name: 'packageName', label: 'tenant.packageName', hideInForm: true },
    ],
    toolbar: [
      {
        key: 'setting',
        label: 'tenant.setting',
        permission: 'tenant_setting',
        needsSelection: true,
        run: (ctx) => open({ kind: 'setting', tenants: ctx.selected }, ctx.reload),
      },
    ],
    rowActions: [
      {
        key: 'package',
        label: 'tenant.package',
        permission: 'tenant_package',
        run: (tenant, ctx) => open({ kind: 'package', tenant }, ctx.reload),
      },
      {
        key: 'datasource',
        label: 'tenant.datasource',
        permission: 'tenant_datasource',
        run: (tenant, ctx) => open({ kind: 'datasource', tenant }, ctx.reload),
      },
    ],
  }
}
