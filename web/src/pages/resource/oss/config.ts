/** Object storage configurations (the `/api/blade-resource/oss` family, plus `enable?id`). */
import { createElement } from 'react'
import { Tag } from 'antd'
import { enableOss, ossApi, type OssConfig } from '../../../api/resource/resource'
import type { CrudConfig, Translate } from '../../../components/crud/types'

export function ossConfig(t: Translate): CrudConfig<OssConfig> {
  return {
    menuCode: 'oss',
    api: ossApi,
    addDefaults: { category: 2, pathStyle: 1 },
    fields: [
      { name: 'id', label: 'resource.oss.ossCode', hideInTable: true, hideInForm: true },
      {
        name: 'category',
        label: 'resource.oss.category',
        type: 'select',
        required: 'resource.oss.categoryRequired',
        search: true,
        options: [
          { value: 1, label: 'resource.oss.local' },
          { value: 2, label: 'resource.oss.s3' },
        ],
      },
      {
        name: 'ossCode',
        label: 'resource.oss.ossCode',
        required: 'resource.oss.ossCodeRequired',
        max: 32,
        search: true,
      },
      { name: 'endpoint', label: 'resource.endpoint', max: 255 },
      { name: 'bucketName', label: 'resource.oss.bucketName', max: 63 },
      { name: 'region', label: 'resource.oss.region', max: 64, hideInTable: true },
      { name: 'accessKey', label: 'resource.accessKey', max: 255, hideInTable: true },
      {
        name: 'secretKey',
        label: 'resource.secretKey',
        type: 'password',
        max: 200,
        hideInTable: true,
        modes: ['add', 'edit'],
      },
      {
        name: 'pathStyle',
        label: 'resource.oss.pathStyle',
        type: 'select',
        hideInTable: true,
        options: [
          { value: 1, label: 'resource.oss.pathStyleOn' },
          { value: 0, label: 'resource.oss.pathStyleOff' },
        ],
      },
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
        permission: 'oss_enable',
        visible: (row) => row.status !== 2,
        run: (row, ctx) => ctx.confirm('resource.enableConfirm', () => enableOss(row.id ?? '')),
      },
    ],
  }
}
