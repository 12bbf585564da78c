/** SMS configurations (the `/api/blade-resource/sms` family, plus `enable?id`). */
import { createElement } from 'react'
import { Tag } from 'antd'
import { enableSms, smsApi, type SmsConfig } from '../../../api/resource/resource'
import type { CrudConfig, Translate } from '../../../components/crud/types'

export function smsConfig(t: Translate): CrudConfig<SmsConfig> {
  return {
    menuCode: 'sms',
    api: smsApi,
    addDefaults: { category: 1 },
    fields: [
      { name: 'id', label: 'resource.sms.smsCode', hideInTable: true, hideInForm: true },
      {
        name: 'category',
        label: 'resource.sms.category',
        type: 'select',
        required: 'resource.sms.categoryRequired',
        search: true,
        options: [
          { value: 1, label: 'resource.sms.aliyun' },
          { value: 2, label: 'resource.sms.tencent' },
          { value: 3, label: 'resource.sms.generic' },
        ],
      },
      {
        name: 'smsCode',
        label: 'resource.sms.smsCode',
        required: 'resource.sms.smsCodeRequired',
        max: 32,
        search: true,
      },
      { name: 'templateId', label: 'resource.sms.templateId', max: 64 },
      { name: 'signName', label: 'resource.sms.signName', max: 64 },
      { name: 'accessKey', label: 'resource.accessKey', max: 255, hideInTable: true },
      {
        name: 'secretKey',
        label: 'resource.secretKey',
        type: 'password',
        max: 200,
        hideInTable: true,
        modes: ['add', 'edit'],
      },
      { name: 'regionId', label: 'resource.sms.regionId', max: 64, hideInTable: true },
      { name: 'appId', label: 'resource.sms.appId', max: 64, hideInTable: true },
      { name: 'endpoint', label: 'resource.endpoint', max: 255, hideInTable: true },
      {
        name: 'status',
        label: 'resource.status',
        hideInForm: true,
        width: 100,
        render: (v) =>
          v === 2
            ? createElement(Tag, { color: 'green' }, t('resource.enabled'))
            : createElement(Tag, null, t('resource.disabled')),
      },
      { name: 'remark', label: 'resource.remark', type: 'textarea', hideInTable: true },
    ],
    rowActions: [
      {
        key: 'enable',
        label: 'resource.enable',
        permission: 'sms_enable',
        visible: (row) => row.status !== 2,
        run: (row, ctx) => ctx.confirm('resource.enableConfirm', () => enableSms(row.id ?? '')),
      },
    ],
  }
}
