import { Alert, App, DatePicker, Form, InputNumber, Modal, Select } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import dayjs, { type Dayjs } from 'dayjs'
import { useEffect, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import {
  datasourceOptionsQuery,
  packageOptionsQuery,
  tenantPackageQuery,
} from '../../../api/system/queries'
import {
  tenantApi,
  tenantDatasource,
  tenantPackageSetting,
  tenantSetting,
} from '../../../api/system/tenant'
import { wireDateTime } from '../../../components/crud/logic'
import type { TenantDialog } from './config'

interface Props {
  dialog: TenantDialog
  onClose: () => void
  onDone: () => void
}

type Values = Record<string, unknown>

/** The tenant screen's own dialogs: authorization (account limit, expiry), package, data source. */
export default function TenantDialogs({ dialog, onClose, onDone }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const queryClient = useQueryClient()
  const [form] = Form.useForm<Values>()
  const tenantId = dialog.kind === 'setting' ? '' : (dialog.tenant.tenantId ?? '')
  const packages = useQuery({ ...packageOptionsQuery(), enabled: dialog.kind === 'package' })
  const currentPackage = useQuery({
    ...tenantPackageQuery(tenantId),
    enabled: dialog.kind === 'package',
  })
  const datasources = useQuery({
    ...datasourceOptionsQuery(),
    enabled: dialog.kind === 'datasource',
  })

  const { isSuccess: packageRead, data: packageNow } = currentPackage
  useEffect(() => {
    if (packageRead) form.setFieldValue('packageId', packageNow?.id)
  }, [packageRead, packageNow, form])

  const saving = useMutation({
    mutationFn: async (values: Values) => {
      if (dialog.kind === 'setting') {
        await tenantSetting(
          dialog.tenants.flatMap((tenant) => (tenant.id ? [tenant.id] : [])),
          Number(values.accountNumber),
          (values.expireTime as Dayjs).format(wireDateTime),
        )
      } else if (dialog.kind === 'package') {
        await tenantPackageSetting(
          tenantId,
          typeof values.packageId === 'string' ? values.packageId : '',
        )
      } else {
        // Cleared: unbind (the contract's empty id).
        const id = values.datasourceId
        await tenantDatasource(tenantId, typeof id === 'string' ? id : '')
      }
    },
    onSuccess: () => {
      // Every cached tenant query is out of date; the list on screen reloads through onDone
      // (which also clears the selection), so nothing is fetched twice.
      void queryClient.invalidateQueries({ queryKey: tenantApi.key, refetchType: 'none' })
      void message.success(t('crud.success'))
      onDone()
    },
  })

  const save = async () => {
    let values: Values
    try {
      values = await form.validateFields()
    } catch {
      return
    }
    saving.mutate(values)
  }

  let title: string
  let body: ReactNode
  if (dialog.kind === 'setting') {
    const only = dialog.tenants.length === 1 ? dialog.tenants[0] : undefined
    title = t('tenant.settingTitle')
    body = (
      <Form
        form={form}
        layout="vertical"
        data-testid="tenant-setting-form"
        initialValues={{
          accountNumber: only?.accountNumber ?? -1,
          expireTime: only?.expireTime ? dayjs(only.expireTime) : undefined,
        }}
      >
        <Form.Item
          name="accountNumber"
          label={t('tenant.accountNumber')}
          extra={t('tenant.accountNumberHint')}
          rules={[{ required: true, message: t('tenant.accountNumberRequired') }]}
        >
          <InputNumber min={-1} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item
          name="expireTime"
          label={t('tenant.expireTime')}
          rules={[{ required: true, message: t('tenant.expireTimeRequired') }]}
        >
          <DatePicker showTime style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    )
  } else if (dialog.kind === 'package') {
    title = t('tenant.packageTitle')
    body = (
      <Form form={form} layout="vertical" data-testid="tenant-package-form">
        <Form.Item name="packageId" label={t('tenant.packageId')} extra={t('tenant.packageNone')}>
          <Select
            allowClear
            options={(packages.data ?? []).map((item) => ({
              value: item.id,
              label: item.packageName,
            }))}
          />
        </Form.Item>
      </Form>
    )
  } else {
    title = t('tenant.datasourceTitle')
    const unavailable = datasources.isError
    const none = datasources.isSuccess && datasources.data.length === 0
    body = (
      <Form
        form={form}
        layout="vertical"
        data-testid="tenant-datasource-form"
        initialValues={{ datasourceId: dialog.tenant.datasourceId ?? undefined }}
      >
        {(unavailable || none) && (
          <Alert
            type="warning"
            showIcon
            style={{ marginBottom: 16 }}
            data-testid="tenant-datasource-unavailable"
            title={t(unavailable ? 'tenant.datasourceUnavailable' : 'tenant.datasourceEmpty')}
          />
        )}
        <Form.Item
          name="datasourceId"
          label={t('tenant.datasourceId')}
          extra={t('tenant.datasourceHint')}
        >
          <Select
            data-testid="tenant-datasource-select"
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            disabled={unavailable}
            loading={datasources.isPending}
            notFoundContent={t('tenant.datasourceNone')}
            options={(datasources.data ?? []).map((item) => ({ value: item.id, label: item.name }))}
          />
        </Form.Item>
      </Form>
    )
  }

  return (
    <Modal
      open
      title={title}
      onCancel={onClose}
      onOk={() => void save()}
      confirmLoading={saving.isPending}
      okButtonProps={{
        'data-testid': 'tenant-dialog-ok',
        // Without the list nothing can be chosen; an empty list still lets a binding be removed.
        disabled: dialog.kind === 'datasource' && datasources.isError,
      }}
      destroyOnHidden
    >
      {body}
    </Modal>
  )
}
